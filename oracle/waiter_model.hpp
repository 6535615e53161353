// The waiter list's reference model, written from the K rules of docs/SPEC.md (K3..K8):
// which waiters each list holds and how many wakes each waiter is owed. It learns only
// what the driver did (a waiter created, registered on a list directly or through a
// clone, dropped; a list drained by take-then-wake, wake or move) and what the lists and
// wakers answered (contains, live and size; each waker's count of wakes), and says which
// rule an answer breaks. Waiters are numbered in creation order.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace moq::oracle {

class WaiterModel {
public:
    explicit WaiterModel(std::size_t lists) : lists_(lists) {}

    // What the driver did.
    void created();
    void registered(std::size_t waiter, std::size_t list);  // directly or through a clone (K4)
    void dropped(std::size_t waiter);                       // its last handle is gone (K7)
    void drained(std::size_t list);                         // take, wake or move: one wake owed each (K6)

    // The waiter a step's pick names (modulo the number created), if any is still alive.
    [[nodiscard]] std::optional<std::size_t> live_waiter(std::size_t pick) const;
    [[nodiscard]] std::size_t waiters() const { return waiters_.size(); }
    [[nodiscard]] std::size_t lists() const { return lists_; }

    // What the system answered.
    void took(std::size_t list, bool left_empty);                        // K5
    void woken(std::size_t waiter, int wakes_so_far);                    // K6
    void holds(std::size_t list, std::size_t waiter, bool contains);     // K4
    void counted(std::size_t list, std::size_t live, std::size_t size);  // K4, K7

    [[nodiscard]] const std::string& violation() const { return violation_; }

private:
    struct Waiter {
        bool alive = true;
        std::vector<bool> registered;  // on that list since its last drain
        int owed_wakes = 0;
    };

    void fail(std::string message);

    std::size_t lists_;
    std::vector<Waiter> waiters_;
    std::string violation_;
};

}  // namespace moq::oracle
