// A suite's operations as small command types, one operation each (as RapidCheck's
// state-machine guide has them). A command is a type with
//   static constexpr const char* name;           // its name in stored cases
//   static constexpr bool has_argument;          // whether its one byte means anything
//   static bool applies(const World&, std::uint8_t argument);      // the precondition
//   static void run(World&, std::uint8_t argument, sim::Task&);    // model, then system
// (the model first: under drive `inline` a wake inside the operation may run the reader,
// which must find the model told)
// A case stays a plain list of (command index, argument); a step whose precondition
// does not hold when its turn comes (a shrink removed what it needed) is skipped.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "properties/drive.hpp"
#include "sim/executor.hpp"

namespace moq::properties {

template <class World, class... Commands>
class CommandTable {
public:
    static constexpr std::size_t size = sizeof...(Commands);
    static constexpr std::array<const char*, size> names{Commands::name...};
    static constexpr std::array<bool, size> has_argument{Commands::has_argument...};

    template <class Command>
    static constexpr std::uint8_t index_of() {
        constexpr std::array<bool, size> same{std::is_same_v<Command, Commands>...};
        for (std::size_t i = 0; i < size; ++i)
            if (same[i]) return static_cast<std::uint8_t>(i);
        return size;
    }

    // Runs command `index` if its precondition holds, recorded in the trace with its
    // argument; false when it was skipped.
    static bool run(std::uint8_t index, World& world, std::uint8_t argument, sim::Task& task) {
        if (!table[index].applies(world, argument)) return false;
        if (has_argument[index])
            trace_operation(task, names[index], {argument});
        else
            trace_operation(task, names[index], {});
        table[index].run(world, argument, task);
        return true;
    }

    static std::optional<std::uint8_t> find(std::string_view name) {
        for (std::size_t i = 0; i < size; ++i)
            if (name == names[i]) return static_cast<std::uint8_t>(i);
        return std::nullopt;
    }

private:
    struct Entry {
        bool (*applies)(const World&, std::uint8_t);
        void (*run)(World&, std::uint8_t, sim::Task&);
    };
    static constexpr std::array<Entry, size> table{Entry{&Commands::applies, &Commands::run}...};
};

}  // namespace moq::properties
