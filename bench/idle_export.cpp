// The idle-export benchmark: one task owns the subscribers of several tracks, the way a
// container export does, and polls all of them on every pass. Run it under callgrind for
// 0 and N passes; (I(N) - I(0)) / N is the cost of one pass (scripts/bench does this).
//
//   idle    N passes with nothing new: every poll answers Pending.
//   active  N rounds: write one frame to every track, then drain every track.
//
// The program prints nothing on success. It checks at exit that it read exactly what
// was written (exit 1 otherwise); a bad argument is a one-line error and exit 2.

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bench_args.hpp"
#include "kio/clock.hpp"
#include "kio/manual_clock.hpp"
#include "kio/park.hpp"
#include "kio/waiter.hpp"
#include "kio/waker.hpp"
#include "model/group.hpp"
#include "model/idle.hpp"
#include "model/resume.hpp"
#include "model/route.hpp"
#include "model/subscriber.hpp"
#include "model/track.hpp"
#include "model/walk.hpp"

namespace {

using namespace moq;

constexpr const char* usage_text =
    "usage: idle_export --case idle|active --tracks N --gates on|off --polls N [--verbose]\n"
    "\n"
    "Sets up N tracks, each with one open group of a few frames, drains them once, then:\n"
    "  --case idle     --polls passes over every track with nothing new (all Pending)\n"
    "  --case active   --polls rounds: one frame to every track, then drain every track\n"
    "  --tracks N      tracks owned by the one export task (1 to 4096)\n"
    "  --gates on|off  the idle gates of the process on or off (set_gates_enabled)\n"
    "  --polls N       passes or rounds after the set-up; 0 runs only the set-up\n"
    "  --verbose       print what was read at exit\n"
    "Prints nothing on success; exit 1 if what was read is wrong, 2 for a bad argument.\n";

// Frames each track's group holds before the first drain.
constexpr std::uint64_t initial_frames = 3;

// The task's waker: the data pointer is the counter itself, so clones are free and every
// clone will_wake every other, as with a real executor's task handle.
class WakeCounter {
public:
    kio::Waker waker() { return kio::Waker(&vtable, this); }
    [[nodiscard]] std::uint64_t wakes() const { return wakes_.load(std::memory_order_relaxed); }

private:
    static void* clone(void* data) { return data; }
    static void wake(void* data) { static_cast<WakeCounter*>(data)->wakes_.fetch_add(1, std::memory_order_relaxed); }
    static void drop(void*) {}
    static constexpr kio::WakerVtable vtable{&clone, &wake, &drop};

    std::atomic<std::uint64_t> wakes_{0};
};

// A frame's payload is its index in the track, so the reader can check order and loss.
std::string payload_of(std::uint64_t index) {
    std::string payload(sizeof index, '\0');
    std::memcpy(payload.data(), &index, sizeof index);
    return payload;
}

bool payload_is(const std::string& payload, std::uint64_t index) {
    return payload.size() == sizeof index && std::memcmp(payload.data(), &index, sizeof index) == 0;
}

// One exported track: the producer side, and the subscriber the export task polls.
struct ExportTrack {
    ExportTrack(kio::Clock& clock, model::GroupLimits limits)
        : subscriber(model::ResumeReader(route.consume(), preferences.consume(), clock)) {
        auto appended = track.append_group(limits);
        if (auto* group = std::get_if<model::GroupProducer>(&appended)) writing.emplace(std::move(*group));
        route.serve_from(track.consume());
    }

    model::TrackProducer track;
    model::Route route;
    kio::Producer<model::Preferences> preferences;
    model::TrackSubscriber subscriber;
    std::optional<model::GroupProducer> writing;     // the group frames go to
    std::optional<model::GroupConsumer> open_group;  // the group the export reads
    std::uint64_t written = 0;                       // frames written to this track
    std::uint64_t read = 0;                          // frames the export read from it
};

struct Tally {
    std::uint64_t groups = 0;
    std::uint64_t frames = 0;
    bool broken = false;  // an end, an error, a refused write or a wrong frame
};

void write_one(ExportTrack& track, Tally& tally) {
    if (!track.writing || track.writing->write_frame(payload_of(track.written))) {
        tally.broken = true;
        return;
    }
    ++track.written;
}

// The export task: its tracks, its waker, and the Park holding its waiter, as an
// executor's task would hold them. pass() is what one wake of the task runs.
class ExportTask {
public:
    ExportTask(std::vector<ExportTrack> owned, kio::Waker waker) : tracks(std::move(owned)), waker_(std::move(waker)) {}

    // One pass over all the tracks: for each, poll the subscriber, then the open group,
    // each until Pending (with nothing new, one Pending poll of each). Each answer lives
    // only as long as its test, and a ready group (rare: a new group) is taken out of
    // line, so the loop keeps few values live and the idle path is the two gate tests.
    // Frames are read inline: the active path pays no extra call. One function on
    // purpose: a call per track would add its own prologue to what is measured.
    [[gnu::noinline]] void pass() {
        const kio::Waiter& waiter = park_.hold(waker_);
        for (ExportTrack& track : tracks) {
            if (auto group = track.subscriber.poll_group(waiter, model::Walk::arrival); !group.is_pending())
                [[unlikely]]
                take_groups(track, waiter, std::move(group));
            if (!track.open_group) [[unlikely]]
                continue;
            for (;;) {
                auto frame = track.open_group->poll_read_frame(waiter);
                if (frame.is_pending()) [[likely]]
                    break;
                if (!read_frame(track, frame)) break;
            }
        }
    }

    std::vector<ExportTrack> tracks;
    Tally tally;

private:
    using GroupAnswer = kio::Poll<model::Next<model::GroupConsumer>>;
    using FrameAnswer = kio::Poll<model::Next<model::Bytes>>;

    // `first` is a ready answer: take it and every group after it, up to Pending.
    [[gnu::noinline]] void take_groups(ExportTrack& track, const kio::Waiter& waiter, GroupAnswer&& first) {
        if (!take_group(track, first)) return;
        for (;;) {
            auto group = track.subscriber.poll_group(waiter, model::Walk::arrival);
            if (group.is_pending() || !take_group(track, group)) return;
        }
    }
    bool take_group(ExportTrack& track, GroupAnswer& group) {
        if (!group.value().is_item()) {
            tally.broken = true;
            return false;
        }
        track.open_group = std::move(group.value().item());
        ++tally.groups;
        return true;
    }

    // A ready answer of the open group: checks its frame is the next one.
    bool read_frame(ExportTrack& track, FrameAnswer& frame) {
        if (!frame.value().is_item() || !payload_is(*frame.value().item(), track.read)) {
            tally.broken = true;
            return false;
        }
        ++track.read;
        ++tally.frames;
        return true;
    }

    kio::Waker waker_;
    kio::Park park_;
};

enum class Case { idle, active };

struct Options {
    Case which = Case::idle;
    std::uint64_t tracks = 0;
    bool gates = true;
    std::uint64_t polls = 0;
    bool verbose = false;
};

Options parse(int argc, char** argv) {
    const bench::Args args{"idle_export"};
    Options options;
    bool have_case = false, have_tracks = false, have_gates = false, have_polls = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(usage_text, stdout);
            std::exit(0);
        }
        if (arg == "--verbose") {
            options.verbose = true;
            continue;
        }
        const auto [flag, value] = args.split_flag(argc, argv, i);
        if (flag == "--case") {
            if (value == "idle")
                options.which = Case::idle;
            else if (value == "active")
                options.which = Case::active;
            else
                args.bad_argument("--case is idle or active, not", value);
            have_case = true;
        } else if (flag == "--tracks") {
            options.tracks = args.parse_count(value, 1, 4096, "--tracks takes 1 to 4096, not");
            have_tracks = true;
        } else if (flag == "--gates") {
            if (value == "on")
                options.gates = true;
            else if (value == "off")
                options.gates = false;
            else
                args.bad_argument("--gates is on or off, not", value);
            have_gates = true;
        } else if (flag == "--polls") {
            options.polls = args.parse_count(value, 0, 100'000'000, "--polls takes 0 to 100000000, not");
            have_polls = true;
        } else {
            args.bad_argument("unknown option", flag);
        }
    }
    if (!have_case) args.bad_argument("missing option", "--case");
    if (!have_tracks) args.bad_argument("missing option", "--tracks");
    if (!have_gates) args.bad_argument("missing option", "--gates");
    if (!have_polls) args.bad_argument("missing option", "--polls");
    return options;
}

[[noreturn]] void wrong(const char* what, std::uint64_t got, std::uint64_t want) {
    std::fprintf(stderr, "idle_export: %s: got %llu, want %llu\n", what, static_cast<unsigned long long>(got),
                 static_cast<unsigned long long>(want));
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    model::set_gates_enabled(options.gates);

    // The active case writes every round into the one open group: make room for that.
    model::GroupLimits limits;
    limits.max_frames = static_cast<std::size_t>(initial_frames + options.polls + 1);
    limits.max_bytes = limits.max_frames * sizeof(std::uint64_t);

    kio::ManualClock clock;
    std::vector<ExportTrack> tracks;
    tracks.reserve(options.tracks);
    Tally writes;
    for (std::uint64_t i = 0; i < options.tracks; ++i) {
        ExportTrack& track = tracks.emplace_back(clock, limits);
        for (std::uint64_t frame = 0; frame < initial_frames; ++frame) write_one(track, writes);
    }

    WakeCounter counter;
    ExportTask task(std::move(tracks), counter.waker());
    task.pass();
    const Tally setup = std::exchange(task.tally, Tally{});

    // The measured part: everything from here scales with --polls.
    const std::uint64_t wakes_before = counter.wakes();
    if (options.which == Case::idle) {
        for (std::uint64_t left = options.polls; left != 0; --left) task.pass();
    } else {
        for (std::uint64_t i = 0; i < options.polls; ++i) {
            for (ExportTrack& track : task.tracks) write_one(track, task.tally);
            task.pass();
        }
    }
    const std::uint64_t wakes = counter.wakes() - wakes_before;
    const Tally measured = task.tally;

    if (writes.broken || setup.broken || measured.broken) {
        std::fputs("idle_export: a read ended, failed or handed out a wrong frame, or a write was refused\n", stderr);
        return 1;
    }
    if (setup.groups != options.tracks) wrong("groups read by the first drain", setup.groups, options.tracks);
    if (setup.frames != options.tracks * initial_frames)
        wrong("frames read by the first drain", setup.frames, options.tracks * initial_frames);
    if (measured.groups != 0) wrong("groups read after the first drain", measured.groups, 0);
    // Idle: nothing read and nothing woken. Active: each frame read once, and each write
    // woke the task once (the Pending read of its group registered it).
    const std::uint64_t want = options.which == Case::idle ? 0 : options.polls * options.tracks;
    if (measured.frames != want) wrong("frames read after the first drain", measured.frames, want);
    if (wakes != want) wrong("task wakes after the first drain", wakes, want);

    if (options.verbose)
        std::printf("idle_export: %s, %llu tracks, gates %s, %llu polls: read %llu frames, %llu wakes\n",
                    options.which == Case::idle ? "idle" : "active", static_cast<unsigned long long>(options.tracks),
                    options.gates ? "on" : "off", static_cast<unsigned long long>(options.polls),
                    static_cast<unsigned long long>(measured.frames), static_cast<unsigned long long>(wakes));
    return 0;
}
