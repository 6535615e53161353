#include "runner/json_input.hpp"

#include "runner/args.hpp"

namespace moq::runner {

nlohmann::json parse_json_input(std::string_view text, const std::string& label) {
    // `depth` counts the arrays and objects around the one starting.
    const auto limit_nesting = [&](int depth, nlohmann::json::parse_event_t event, const nlohmann::json&) {
        const bool starts =
            event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
        if (starts && depth >= max_json_nesting)
            throw UsageError(label + ": JSON nested deeper than " + std::to_string(max_json_nesting) + " levels");
        return true;
    };
    try {
        return nlohmann::json::parse(text, limit_nesting);
    } catch (const nlohmann::json::parse_error& error) {
        throw UsageError(label + ": not JSON (" + std::string(error.what()) + ")");
    } catch (const nlohmann::json::out_of_range& error) {
        // A number past a double's range (1e400) is refused this way, not as a parse error.
        throw UsageError(label + ": a number out of range (" + std::string(error.what()) + ")");
    }
}

}  // namespace moq::runner
