// A suite's operations as one table of small command types, one operation each (as
// RapidCheck's state-machine guide has them). A command is a type with
//   static constexpr const char* name;             // its name in stored cases
//   static constexpr std::size_t weight;           // how often the fixed mix draws it
//   static constexpr std::array<Argument, N> arguments;  // what it reads of its step
//   static bool applies(const World&, const Step&);      // the precondition
//   static void run(World&, const Step&, Context&...);   // model, then system
// and, optionally, `static constexpr bool swarm_may_drop = false;` for an operation every
// swarm case keeps. (The model first: under drive `inline` a wake inside the operation
// may run the reader, which must find the model told.) `Step` is the suite's own: what a
// command reads of it (a byte, or a struct of arguments) is the suite's choice.
// A case stays a plain list of steps naming a command by its index in the table; a step
// whose precondition does not hold when its turn comes (a shrink removed what it
// needed) is skipped. The table is also data: `operations()` is what
// `moqsim list --suites --json` prints, for programs that enumerate a suite's operations.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "properties/drive.hpp"
#include "properties/operation.hpp"
#include "properties/swarm.hpp"

namespace moq::properties {

// No arguments: the command's step carries nothing it reads.
inline constexpr std::array<Argument, 0> no_arguments{};

// A step's byte drawn from an argument's domain.
inline rc::Gen<std::uint8_t> byte_in(const Argument& argument) {
    return rc::gen::inRange<std::uint8_t>(static_cast<std::uint8_t>(argument.low),
                                          static_cast<std::uint8_t>(argument.high));
}

template <class... Commands>
class CommandTable {
public:
    static constexpr std::size_t size = sizeof...(Commands);
    static_assert(size > 0 && size < 256, "a step names its command in one byte");
    static constexpr std::array<const char*, size> names{Commands::name...};
    static constexpr std::array<bool, size> has_arguments{(Commands::arguments.size() != 0)...};

    template <class Command>
    static constexpr std::uint8_t index_of() {
        constexpr std::array<bool, size> same{std::is_same_v<Command, Commands>...};
        for (std::size_t i = 0; i < size; ++i)
            if (same[i]) return static_cast<std::uint8_t>(i);
        return size;
    }

    static std::optional<std::uint8_t> find(std::string_view name) {
        for (std::size_t i = 0; i < size; ++i)
            if (name == names[i]) return static_cast<std::uint8_t>(i);
        return std::nullopt;
    }

    // Runs command `index` if its precondition holds: `announce(name)` first (the suite's
    // trace of the operation), then the command. False when it was skipped.
    template <class World, class Step, class Announce, class... Context>
    static bool run(std::uint8_t index, World& world, const Step& step, Announce&& announce, Context&... context) {
        bool ran = false;
        std::uint8_t at = 0;
        static_cast<void>(
            ((at++ == index ? (ran = run_one<Commands>(world, step, announce, context...), true) : false) || ...));
        return ran;
    }

    // How a suite whose step is one byte traces it: the operation, with the byte where
    // the command reads it. (A suite with more arguments traces them its own way.)
    static auto trace_byte(sim::Task& task, std::uint8_t index, std::uint8_t byte) {
        return [&task, index, byte](const char* name) {
            if (has_arguments[index])
                trace_operation(task, name, {byte});
            else
                trace_operation(task, name, {});
        };
    }

    // The command of each step, drawn by the weights; with the swarm, from the kinds a case
    // keeps (see properties/swarm.hpp). `build` makes the case from that generator.
    template <class Build>
    static auto generator(Mix mix, Build build) {
        return swarmed<std::uint8_t>({std::pair<std::size_t, std::uint8_t>{Commands::weight, index_of<Commands>()}...},
                                     mix, std::move(build), std::vector<bool>{!may_drop<Commands>()...});
    }

    // The table as data, in its order (which is the order the weights are drawn in).
    static std::vector<Operation> operations() {
        return {Operation{Commands::name, Commands::weight, may_drop<Commands>(),
                          std::vector<Argument>(Commands::arguments.begin(), Commands::arguments.end())}...};
    }

private:
    template <class Command>
    static constexpr bool may_drop() {
        if constexpr (requires { Command::swarm_may_drop; })
            return Command::swarm_may_drop;
        else
            return true;
    }

    template <class Command, class World, class Step, class Announce, class... Context>
    static bool run_one(World& world, const Step& step, Announce& announce, Context&... context) {
        if (!Command::applies(world, step)) return false;
        announce(Command::name);
        Command::run(world, step, context...);
        return true;
    }
};

}  // namespace moq::properties
