// 82599 "advanced" receive and transmit descriptors (datasheet 331520, sections 7.1.6 and 7.2.3.2.4),
// with the field names of the Linux/DPDK ixgbe drivers so that a reader who knows the NIC
// recognises every field. Only the parts gnf uses are declared; the layouts are exact.
//
// Both the NIC model and the drivers (CPU and GPU) include this file, so it is host/device code.
#pragma once
#include <cstdint>

#include "util/hd.h"

namespace gnf::nic {

// Receive descriptor: the driver writes the "read" format (buffer address), the NIC overwrites it
// with the "write-back" format once the packet is in the buffer (7.1.6.1 and 7.1.6.2).
union ixgbe_adv_rx_desc {
  struct {
    uint64_t pkt_addr;  // packet buffer address (a unified virtual address in gnf, see mem/)
    uint64_t hdr_addr;  // header buffer address; gnf does not split headers, bit 0 doubles as DD
  } read;
  struct {
    struct {
      union {
        uint32_t data;
        struct {
          uint16_t pkt_info;  // RSS type in bits 3:0
          uint16_t hdr_info;
        } hs_rss;
      } lo_dword;
      union {
        uint32_t rss;  // RSS hash
        struct {
          uint16_t ip_id;
          uint16_t csum;
        } csum_ip;
      } hi_dword;
    } lower;
    struct {
      uint32_t status_error;  // DD, EOP, error bits
      uint16_t length;        // bytes written to the packet buffer
      uint16_t vlan;
    } upper;
  } wb;
};
static_assert(sizeof(ixgbe_adv_rx_desc) == 16, "82599 rx descriptors are 16 bytes");

inline constexpr uint32_t IXGBE_RXD_STAT_DD = 0x01;   // descriptor done
inline constexpr uint32_t IXGBE_RXD_STAT_EOP = 0x02;  // end of packet
// RSS type field (pkt_info 3:0), 7.1.6.2
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_NONE = 0x0;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV4_TCP = 0x1;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV4 = 0x2;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV6_TCP = 0x3;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV6 = 0x5;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV4_UDP = 0x7;
inline constexpr uint16_t IXGBE_RXDADV_RSSTYPE_IPV6_UDP = 0x8;

// Transmit descriptor: the driver writes the "read" format; with RS set the NIC writes back DD
// into the status word once it has read the packet (7.2.3.2.4 and 7.2.3.5.1).
union ixgbe_adv_tx_desc {
  struct {
    uint64_t buffer_addr;
    uint32_t cmd_type_len;   // DTALEN 15:0, DTYP, DCMD
    uint32_t olinfo_status;  // PAYLEN 31:14
  } read;
  struct {
    uint64_t rsvd;
    uint32_t nxtseq_seed;
    uint32_t status;  // DD in bit 0
  } wb;
};
static_assert(sizeof(ixgbe_adv_tx_desc) == 16, "82599 tx descriptors are 16 bytes");

inline constexpr uint32_t IXGBE_ADVTXD_DTALEN_MASK = 0x0000FFFF;
inline constexpr uint32_t IXGBE_ADVTXD_DTYP_DATA = 0x00300000;   // advanced data descriptor
inline constexpr uint32_t IXGBE_ADVTXD_DCMD_EOP = 0x01000000;    // end of packet
inline constexpr uint32_t IXGBE_ADVTXD_DCMD_IFCS = 0x02000000;   // insert FCS
inline constexpr uint32_t IXGBE_ADVTXD_DCMD_RS = 0x08000000;     // report status (write back DD)
inline constexpr uint32_t IXGBE_ADVTXD_DCMD_DEXT = 0x20000000;   // descriptor extension (advanced)
inline constexpr uint32_t IXGBE_ADVTXD_PAYLEN_SHIFT = 14;
inline constexpr uint32_t IXGBE_ADVTXD_STAT_DD = 0x01;

// The one command word gnf's drivers put in every data descriptor.
GNF_INLINE uint32_t tx_cmd_type_len(uint32_t len, bool report_status) {
  return len | IXGBE_ADVTXD_DTYP_DATA | IXGBE_ADVTXD_DCMD_EOP | IXGBE_ADVTXD_DCMD_IFCS |
         IXGBE_ADVTXD_DCMD_DEXT | (report_status ? IXGBE_ADVTXD_DCMD_RS : 0u);
}

}  // namespace gnf::nic
