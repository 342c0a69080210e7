#pragma once
// 2^53: below it in magnitude a double holds every whole number exactly, so whole-number checks,
// integer conversions and prints of counts are exact there and only there.

namespace hetsim {

inline constexpr double kExactWholeDoubleLimit = 9007199254740992.0;

}  // namespace hetsim
