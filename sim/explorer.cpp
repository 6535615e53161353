#include "sim/explorer.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "sim/random.hpp"

namespace moq::sim {

void ExploreTotals::add(const ExploreTotals& other) {
    schedules += other.schedules;
    pruned_by_bound += other.pruned_by_bound;
    pruned_by_sleep += other.pruned_by_sleep;
    sleep_blocked += other.sleep_blocked;
    pruned_by_cache += other.pruned_by_cache;
    distinct_states += other.distinct_states;
    failures += other.failures;
    other_shards += other.other_shards;
    deepest = std::max(deepest, other.deepest);
    seconds += other.seconds;
}

std::string_view explore_end_name(ExploreEnd end) {
    switch (end) {
        case ExploreEnd::exhaustive: return "exhaustive";
        case ExploreEnd::failure: return "failure";
        case ExploreEnd::budget: return "budget";
    }
    return "unknown";
}

namespace {

constexpr std::uint32_t no_task = UINT32_MAX;

// A task whose next step was explored already from an earlier point, with that step's
// footprint: it stays asleep while the steps taken commute with it.
struct Sleeper {
    std::uint32_t task;
    Footprint footprint;
};

// One decision on the path being explored: what a frontier keeps of it, and the sleep
// sets' bookkeeping.
struct Node : ExplorePathStep {
    std::uint32_t depth = 0;  // its index on the path
    // The run's objects touched before it, by number (PathDecider); 0 for a node restored
    // from a frontier, whose run's numbering is not kept.
    std::uint64_t touches = 0;
    std::vector<Sleeper> sleep;  // asleep here
    std::vector<Sleeper> done;   // explored here, with the footprint of their steps
    Footprint after;             // the footprint of the step after `choice`

    [[nodiscard]] std::uint32_t cost(std::uint32_t of) const { return costly && of != fallback ? 1 : 0; }
    [[nodiscard]] std::uint32_t task_of(std::uint32_t of) const { return tasks.empty() ? no_task : tasks[of]; }
    [[nodiscard]] std::uint32_t at_rank(std::uint32_t rank) const {
        if (rank == 0) return fallback;
        return rank - 1 < fallback ? rank - 1 : rank;
    }
};

class Search {
public:
    Search(const ExploreOptions& options, ExploreTotals& totals) : options_(options), totals_(totals) {
        if (options.start) restore(*options.start);
    }

    // Moves the node to its next choice within the bound and awake; false if none is left.
    bool advance(Node& node) {
        while (node.next_rank < node.options) {
            const std::uint32_t choice = node.at_rank(node.next_rank++);
            if (node.spent + node.cost(choice) > options_.bound) {
                ++totals_.pruned_by_bound;
                continue;
            }
            if (asleep(node, node.task_of(choice))) {
                ++totals_.pruned_by_sleep;
                continue;
            }
            node.choice = choice;
            if (sharded() && node.depth == options_.shard.split_depth) ++subtrees_;
            return true;
        }
        return false;
    }

    // The next schedule's prefix, after a run: false when the tree is done.
    bool backtrack() {
        while (!nodes_.empty()) {
            Node& top = nodes_.back();
            if (!top.tasks.empty()) top.done.push_back(Sleeper{top.tasks[top.choice], top.after});
            if (advance(top)) return true;
            nodes_.pop_back();
        }
        return false;
    }

    // A new node below the path for `point`, its sleep set from its parent's.
    Node child(const DecisionPoint& point) const {
        Node node;
        node.depth = static_cast<std::uint32_t>(nodes_.size());
        node.kind = point.kind;
        node.options = point.options;
        node.fallback = point.fallback;
        node.costly = point.costly;
        if (point.tasks) node.tasks.assign(point.tasks, point.tasks + point.options);
        if (nodes_.empty()) return node;
        const Node& parent = nodes_.back();
        node.spent = parent.spent + parent.cost(parent.choice);
        if (!options_.sleep_sets || footprints_distrusted_) return node;
        const std::uint32_t ran = parent.task_of(parent.choice);
        for (const auto* sleepers : {&parent.sleep, &parent.done})
            for (const Sleeper& sleeper : *sleepers)
                if (sleeper.task != ran && sleeper.footprint.independent_of(parent.after))
                    node.sleep.push_back(sleeper);
        return node;
    }

    std::vector<Node>& nodes() { return nodes_; }

    // A run numbered the objects it touched otherwise than an earlier run along the same
    // decisions: an address was reused in one run and not in the other, so a number may
    // name different objects in two runs even before they part. Sleep sets compare
    // footprints across runs, so from here on they prune nothing.
    void distrust_footprints() { footprints_distrusted_ = true; }

    [[nodiscard]] bool sharded() const { return options_.shard.total > 1; }
    // Whether the subtree the path is in now, below the split depth, is this shard's.
    [[nodiscard]] bool owns_subtree() const {
        return subtrees_ > 0 && (subtrees_ - 1) % options_.shard.total == options_.shard.index;
    }
    // Whether the run just made is this shard's: one that reached the split depth belongs
    // to its subtree's shard, one that ended above it to shard 0.
    [[nodiscard]] bool owns_run() const {
        if (!sharded()) return true;
        return nodes_.size() > options_.shard.split_depth ? owns_subtree() : options_.shard.index == 0;
    }
    // A new point below the split depth in another shard's subtree: not explored here.
    [[nodiscard]] bool elsewhere(std::size_t depth) const {
        return sharded() && depth > options_.shard.split_depth && !owns_subtree();
    }

    [[nodiscard]] ExploreFrontier frontier() const {
        ExploreFrontier frontier;
        frontier.subtrees = subtrees_;
        for (const Node& node : nodes_) frontier.path.push_back(static_cast<const ExplorePathStep&>(node));
        return frontier;
    }

    // True if `node`'s state was reached before with at least as much of the bound left
    // (and the same tasks asleep); records it otherwise.
    bool seen_before(const DecisionPoint& point, const Node& node) {
        if (!options_.state_caching || !point.state) return false;
        // Above the split, every shard must walk alike: no shard may skip what another saw.
        if (sharded() && node.depth <= options_.shard.split_depth) return false;
        std::uint64_t key = *point.state;
        const auto mix = [&key](std::uint64_t value) { key = splitmix64_mix(key ^ (value + splitmix64_gamma)); };
        mix(static_cast<std::uint64_t>(point.kind));
        mix(point.options);
        mix(point.fallback);
        mix(reinterpret_cast<std::uintptr_t>(point.where));  // where the running task stands
        std::vector<std::uint32_t> asleep;
        for (const Sleeper& sleeper : node.sleep) asleep.push_back(sleeper.task);
        std::sort(asleep.begin(), asleep.end());
        for (const std::uint32_t task : asleep) mix(task);
        const std::uint32_t left = options_.bound - node.spent;
        const auto [known, fresh] = seen_.try_emplace(key, left);
        if (fresh) return false;
        if (known->second >= left) return true;
        known->second = left;
        return false;
    }
    [[nodiscard]] std::size_t states() const { return seen_.size(); }

private:
    void restore(const ExploreFrontier& frontier) {
        subtrees_ = frontier.subtrees;
        for (const ExplorePathStep& step : frontier.path) {
            Node node;
            static_cast<ExplorePathStep&>(node) = step;
            node.depth = static_cast<std::uint32_t>(nodes_.size());
            nodes_.push_back(std::move(node));
        }
    }

    [[nodiscard]] bool asleep(const Node& node, std::uint32_t task) const {
        if (!options_.sleep_sets || footprints_distrusted_ || task == no_task) return false;
        return std::any_of(node.sleep.begin(), node.sleep.end(),
                           [task](const Sleeper& sleeper) { return sleeper.task == task; });
    }

    const ExploreOptions& options_;
    ExploreTotals& totals_;
    std::vector<Node> nodes_;
    std::unordered_map<std::uint64_t, std::uint32_t> seen_;  // state -> most bound left when reached
    std::uint64_t subtrees_ = 0;                             // entered at the split depth so far
    bool footprints_distrusted_ = false;                     // see distrust_footprints()
};

// One run's decider: the path's choices while they last, then new nodes, each taking
// its first choice within the bound and awake.
class PathDecider final : public Decider {
public:
    explicit PathDecider(Search& search) : search_(search), prefix_(search.nodes().size()) {}

    std::uint32_t choose(const DecisionPoint& point) override {
        std::vector<Node>& nodes = search_.nodes();
        const std::size_t index = recorded_.size();
        if (!blocked_ && index > 0 && index - 1 < nodes.size()) nodes[index - 1].after = current_;
        if (index < prefix_ && nodes[index].touches != 0 && nodes[index].touches != touches_)
            search_.distrust_footprints();
        current_.clear();
        const std::uint32_t choice = decide(point, index);
        recorded_.push_back(Taken{point.kind, point.options, choice, point.fallback, point.where});
        return choice;
    }
    void touched(const void* object) override {
        const std::uint32_t numbered = number(object);
        touches_ = (touches_ ^ numbered) * 0x100000001b3;  // FNV-1a over the numbers
        current_.add(numbered);
    }
    void touched_task(std::uint32_t task) override { current_.add(Footprint::task_object(task)); }
    [[nodiscard]] bool wants_state() const override { return true; }
    [[nodiscard]] bool wants_footprints() const override { return true; }

    // After the run: the last step's footprint.
    void finish() {
        std::vector<Node>& nodes = search_.nodes();
        if (!blocked_ && !recorded_.empty() && recorded_.size() - 1 < nodes.size())
            nodes[recorded_.size() - 1].after = current_;
    }
    [[nodiscard]] bool ended_asleep() const { return asleep_ != 0; }
    [[nodiscard]] bool cached() const { return cached_ != 0; }
    // Where the run left its prefix: another decision there, or its end before the prefix's.
    [[nodiscard]] std::optional<std::size_t> left_prefix_at() const {
        if (diverged_at_) return diverged_at_;
        if (recorded_.size() < prefix_) return recorded_.size();
        return std::nullopt;
    }
    [[nodiscard]] std::size_t decisions_made() const { return recorded_.size(); }
    // The run's decisions, labelled: made only for a failure.
    [[nodiscard]] std::vector<Decision> recorded() const {
        std::vector<Decision> decisions;
        decisions.reserve(recorded_.size());
        for (const Taken& taken : recorded_)
            decisions.push_back(Decision{taken.kind, taken.options, taken.choice, taken.where, taken.fallback});
        return decisions;
    }
    // The prefix this run was given, labelled where the run made the same decision.
    [[nodiscard]] std::vector<Decision> prefix() const {
        std::vector<Decision> decisions;
        const std::vector<Node>& nodes = search_.nodes();
        for (std::size_t index = 0; index < prefix_; ++index) {
            const Node& node = nodes[index];
            const bool same = index < recorded_.size() && recorded_[index].kind == node.kind &&
                              recorded_[index].options == node.options;
            decisions.push_back(
                Decision{node.kind, node.options, node.choice, same ? recorded_[index].where : "", node.fallback});
        }
        return decisions;
    }

private:
    std::uint32_t decide(const DecisionPoint& point, std::size_t index) {
        std::vector<Node>& nodes = search_.nodes();
        if (index < prefix_) {
            const Node& node = nodes[index];
            if (node.kind == point.kind && node.options == point.options) return node.choice;
            if (!diverged_at_) diverged_at_ = index;
            return point.fallback;
        }
        // Past a point where every choice was asleep, every schedule below is another's
        // reordering: the run ends on defaults and adds nothing to explore.
        if (blocked_ || diverged_at_) return point.fallback;
        if (search_.elsewhere(index)) {
            blocked_ = true;
            return point.fallback;
        }
        Node node = search_.child(point);
        node.touches = touches_;
        if (search_.seen_before(point, node)) {
            ++cached_;
            blocked_ = true;  // as below: nothing under this point is new
            return point.fallback;
        }
        if (!search_.advance(node)) {
            ++asleep_;
            blocked_ = true;
            return point.fallback;
        }
        nodes.push_back(std::move(node));
        return nodes.back().choice;
    }

    Search& search_;
    std::size_t prefix_;
    // A decision as the run made it: its label stays the point's own text (a literal, as
    // DecisionPoint::where is), copied into a string only for a failure's list.
    struct Taken {
        DecisionKind kind;
        std::uint32_t options;
        std::uint32_t choice;
        std::uint32_t fallback;
        const char* where;
    };
    std::vector<Taken> recorded_;
    // The object's number in this run (Footprint), 0 for null.
    std::uint32_t number(const void* object) {
        if (!object) return 0;
        const auto found = std::find(numbered_.begin(), numbered_.end(), object);
        if (found != numbered_.end()) return static_cast<std::uint32_t>(found - numbered_.begin()) + 1;
        numbered_.push_back(object);
        return static_cast<std::uint32_t>(numbered_.size());
    }

    Footprint current_;
    std::vector<const void*> numbered_;           // in the order this run first touched them
    std::uint64_t touches_ = 0xcbf29ce484222325;  // every number touched so far, in order
    bool blocked_ = false;                        // nothing below the point reached is explored
    int asleep_ = 0;
    int cached_ = 0;
    std::optional<std::size_t> diverged_at_;
};

// The failure of a run that left `prefix` at decision `at`.
ExploredFailure left_prefix(std::vector<Decision> prefix, std::size_t at, std::uint64_t digest) {
    return ExploredFailure{
        std::move(prefix),
        RunVerdict{false,
                   std::string(nondeterministic_run) + "a run left the schedule it was given at decision " +
                       std::to_string(at) +
                       ": the code under test ran another way along the same decisions (an undefined read, or a "
                       "run that depends on addresses or wall time)",
                   digest},
        std::nullopt};
}

}  // namespace

ExploreTotals explore(const std::function<RunVerdict(Decider&)>& run, const ExploreOptions& options,
                      ExploreState& state) {
    const auto started = std::chrono::steady_clock::now();
    ExploreTotals totals;
    Search search(options, totals);
    bool first_run = true;
    for (;;) {
        const bool out_of_schedules =
            options.schedule_limit && state.totals.schedules + totals.schedules >= *options.schedule_limit;
        if (out_of_schedules || (options.deadline && std::chrono::steady_clock::now() >= *options.deadline)) {
            state.end = ExploreEnd::budget;
            state.frontier = search.frontier();
            break;
        }
        PathDecider decider(search);
        RunVerdict verdict = run(decider);
        decider.finish();
        if (const auto at = decider.left_prefix_at()) {
            if (first_run && options.start && *at < options.start->path.size())
                throw NotDeterministic("a run left its prefix at decision " + std::to_string(*at) +
                                           ": the frontier is not one this run takes",
                                       *at);
            ++totals.schedules;
            ++totals.failures;
            state.failures.push_back(left_prefix(decider.prefix(), *at, verdict.digest));
            state.end = ExploreEnd::failure;  // what was explored past here cannot be trusted
            break;
        }
        first_run = false;
        if (!search.owns_run()) {
            ++totals.other_shards;
        } else {
            ++totals.schedules;
            totals.sleep_blocked += decider.ended_asleep() ? 1 : 0;
            totals.pruned_by_cache += decider.cached() ? 1 : 0;
            totals.deepest = std::max<std::uint64_t>(totals.deepest, decider.decisions_made());
        }
        if (!verdict.ok && search.owns_run()) {
            ++totals.failures;
            state.failures.push_back(ExploredFailure{decider.recorded(), std::move(verdict), std::nullopt});
            if (!options.keep_going) state.end = ExploreEnd::failure;
        }
        if (options.progress) {
            ExploreTotals so_far = state.totals;
            so_far.add(totals);
            options.progress(so_far);
        }
        if (state.ended() || !search.backtrack()) break;
    }
    totals.distinct_states = search.states();
    totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    state.totals.add(totals);
    return totals;
}

}  // namespace moq::sim
