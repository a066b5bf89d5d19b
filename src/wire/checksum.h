// Internet checksum (RFC 1071) in pieces.
//
// Sums stay unfolded until the end so that the constant part of a header can be summed once and
// the fields that change per packet added later (RFC 1624's incremental idea, done forwards).
// Pieces may be summed separately only if each starts at an even offset of the checksummed data.
#pragma once
#include <cstddef>
#include <cstdint>

#include "util/hd.h"

namespace gnf::wire {

// Adds the big-endian 16-bit words of p[0, n) to `sum`; an odd last byte is padded with zero.
GNF_INLINE uint64_t checksum_add(uint64_t sum, const uint8_t* p, size_t n) {
  for (; n >= 2; p += 2, n -= 2) sum += uint32_t(p[0]) << 8 | p[1];
  if (n) sum += uint32_t(p[0]) << 8;
  return sum;
}

// Folds a sum to 16 bits and complements it: the value to write into the checksum field.
GNF_INLINE uint16_t checksum_finish(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

// RFC 1624, eqn. 3: the checksum after one 16-bit word of the covered data changes from old_word to
// new_word, HC' = ~(~HC + ~m + m'), without summing the rest again.
GNF_INLINE uint16_t checksum_replace16(uint16_t checksum, uint16_t old_word, uint16_t new_word) {
  uint64_t sum = uint16_t(~checksum);
  sum += uint16_t(~old_word);
  sum += new_word;
  return checksum_finish(sum);
}

}  // namespace gnf::wire
