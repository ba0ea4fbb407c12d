#include "arbiter/verify/compare.hpp"
#include "detail/chunks.hpp"
#include "detail/decode.hpp"

#include <algorithm>
#include <cmath>

namespace arbiter::verify {

namespace {

template <typename DecodeTruth, typename DecodeGot>
deviation deviation_range(const DecodeTruth& decode_truth, const DecodeGot& decode_got, const value& truth, const value& got,
                          std::size_t begin, std::size_t end) {
  deviation out;
  for (std::size_t element_idx = begin; element_idx < end; ++element_idx) {
    const double t = decode_truth(truth.bytes.data() + element_idx * decode_truth.size);
    const double g = decode_got(got.bytes.data() + element_idx * decode_got.size);
    out.max_abs_err = std::max(out.max_abs_err, std::abs(t - g));
    out.max_abs_truth = std::max(out.max_abs_truth, std::abs(t));
  }
  return out;
}

void widen_to(deviation& whole, const deviation& part) {
  whole.max_abs_err = std::max(whole.max_abs_err, part.max_abs_err);
  whole.max_abs_truth = std::max(whole.max_abs_truth, part.max_abs_truth);
}

deviation deviation_of(const value& truth, const value& got) {
  const std::size_t count = std::min(truth.numel(), got.numel());
  const auto parts = detail::with_decoder(truth.dtype, [&](const auto& decode_truth) {
    return detail::with_decoder(got.dtype, [&](const auto& decode_got) {
      return detail::map_chunks<deviation>(count, [&](std::size_t begin, std::size_t end) {
        return deviation_range(decode_truth, decode_got, truth, got, begin, end);
      });
    });
  });
  deviation whole;
  for (const auto& part : parts) widen_to(whole, part);
  return whole;
}

} // namespace

deviation deviation_from(const std::vector<value>& truth, const std::vector<value>& got) {
  deviation whole;
  for (std::size_t value_idx = 0; value_idx < truth.size() && value_idx < got.size(); ++value_idx) {
    widen_to(whole, deviation_of(truth[value_idx], got[value_idx]));
  }
  return whole;
}

} // namespace arbiter::verify
