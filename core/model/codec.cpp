#include "model/codec.hpp"

namespace moq::model {

std::string compress(Codec codec, std::string_view plain) {
    if (codec == Codec::none) return std::string(plain);
    std::string packed;
    std::size_t i = 0;
    while (i < plain.size()) {
        std::size_t run = 1;
        while (i + run < plain.size() && run < 255 && plain[i + run] == plain[i]) ++run;
        packed.push_back(static_cast<char>(run));
        packed.push_back(plain[i]);
        i += run;
    }
    return packed;
}

std::optional<std::string> decompress(Codec codec, std::string_view packed) {
    if (codec == Codec::none) return std::string(packed);
    if (packed.size() % 2 != 0) return std::nullopt;
    std::string plain;
    for (std::size_t i = 0; i < packed.size(); i += 2) {
        const auto run = static_cast<unsigned char>(packed[i]);
        if (run == 0) return std::nullopt;
        plain.append(run, packed[i + 1]);
    }
    return plain;
}

}  // namespace moq::model
