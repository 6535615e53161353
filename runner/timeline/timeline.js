(function () {
  // Brings the failing event into view: on load, and from the button.
  var scroller = document.querySelector(".scroller");
  var mark = document.getElementById("failure-mark");
  function show() {
    if (!mark || !scroller) return;
    var x = Number(mark.getAttribute("data-x"));
    scroller.scrollLeft = Math.max(0, x - scroller.clientWidth / 2);
  }
  var button = document.getElementById("show-failure");
  if (button) button.addEventListener("click", show);
  show();
})();
