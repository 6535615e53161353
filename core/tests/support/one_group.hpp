// One group with one consumer, read by one counted task: the common start of a test.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "kio/waiter.hpp"
#include "model/group.hpp"
#include "support/counting_waker.hpp"

namespace moq::test {

struct OneGroup {
    WakeCounter task;
    const kio::Waiter waiter{task.waker()};
    model::GroupProducer producer{0};
    model::GroupConsumer consumer = producer.consume();
};

inline std::string frame_of(kio::Poll<model::Next<model::Bytes>> answer) {
    REQUIRE(answer.is_ready());
    REQUIRE(answer.value().is_item());
    return *answer.value().item();
}

inline bool ended(const kio::Poll<model::Next<model::Bytes>>& answer) {
    return answer.is_ready() && answer.value().is_end();
}

}  // namespace moq::test
