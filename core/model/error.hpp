// Why a read ended with an error instead of an item or a clean end.
#pragma once

#include <ostream>
#include <string_view>

namespace moq::model {

enum class Error {
    cancel,        // the producer gave up on purpose
    dropped,       // the producer went away without finishing
    old,           // the reader's budget gave up on stale content
    too_large,     // a size or count limit was exceeded
    wrong_size,    // a chunk or frame did not match its declared size
    frame_open,    // the call needs the in-flight frame to be finished first
    closed,        // written after finish or abort
    route_failed,  // the copy's route broke (transport, session, going away)
    unroutable,    // the route ended with no copy left to serve
    not_found,     // no copy can deliver what was asked
};

constexpr std::string_view error_name(Error error) {
    switch (error) {
        case Error::cancel: return "cancel";
        case Error::dropped: return "dropped";
        case Error::old: return "old";
        case Error::too_large: return "too_large";
        case Error::wrong_size: return "wrong_size";
        case Error::frame_open: return "frame_open";
        case Error::closed: return "closed";
        case Error::route_failed: return "route_failed";
        case Error::unroutable: return "unroutable";
        case Error::not_found: return "not_found";
    }
    return "unknown";
}

inline std::ostream& operator<<(std::ostream& out, Error error) { return out << error_name(error); }

// A verdict is the content's own answer, not a route's failure: recovery leaves it.
constexpr bool is_verdict(Error error) { return error == Error::old || error == Error::cancel; }

}  // namespace moq::model
