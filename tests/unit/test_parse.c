// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The /proc parsers against text copied from a Linux 6.18 VM, against every
 * truncation of that text, and against hostile input (process names, numbers
 * that do not fit, torn files).
 *
 * Truncation contract checked below (see the top of core/util/parse_scan.h): the kernel
 * ends every line with '\n', so bytes after the last '\n' are a cut read and
 * are ignored; multi-line files report exactly their complete lines, the
 * one-line files (loadavg, file-nr) are -EINVAL until the '\n' is there, and
 * /proc/PID/stat keeps the fields that a following blank or '\n' proves
 * complete (nfields counts them). A value is never reported from a cut token.
 *
 * Every truncated copy lives in a heap block of exactly len bytes, so ASan
 * stops the test on any read past len.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A literal and its length without the NUL. */
#define S(lit) lit, sizeof(lit) - 1

/* ---- real samples, Linux 6.18 VM, 2 CPUs ---- */

static const char stat_sample[] =
	"cpu  3897 0 1265 99828 517 0 76 2648 0 0\n"
	"cpu0 2350 0 645 49424 377 0 24 1327 0 0\n"
	"cpu1 1546 0 620 50404 139 0 51 1321 0 0\n"
	"intr 154889 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 16 0 0 0 0 106 8 0 21 1 "
	"31821 0 632 624 0 1413 3364 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"ctxt 243218\n"
	"btime 1795274377\n"
	"processes 4502\n"
	"procs_running 2\n"
	"procs_blocked 0\n"
	"softirq 95954 0 10381 4 1262 31819 0 4 32253 0 20231\n";

static const char loadavg_sample[] =
	"0.23 0.12 0.07 4/89 4503\n";

static const char psi_io_sample[] =
	"some avg10=0.00 avg60=0.00 avg300=0.21 total=3893864\n"
	"full avg10=0.00 avg60=0.00 avg300=0.20 total=3776889\n";

static const char psi_cpu_sample[] =
	"some avg10=0.53 avg60=0.21 avg300=0.23 total=3798250\n"
	"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";

static const char meminfo_sample[] =
	"MemTotal:       24682416 kB\n"
	"MemFree:        23387824 kB\n"
	"MemAvailable:   24334956 kB\n"
	"Buffers:           67084 kB\n"
	"Cached:          1071244 kB\n"
	"SwapCached:            0 kB\n"
	"Active:           292480 kB\n"
	"Inactive:         840904 kB\n"
	"Active(anon):       1528 kB\n"
	"Inactive(anon):     6304 kB\n"
	"Active(file):     290952 kB\n"
	"Inactive(file):   834600 kB\n"
	"Unevictable:       17308 kB\n"
	"Mlocked:           14908 kB\n"
	"SwapTotal:             0 kB\n"
	"SwapFree:              0 kB\n"
	"Zswap:                 0 kB\n"
	"Zswapped:              0 kB\n"
	"Dirty:               716 kB\n"
	"Writeback:             0 kB\n"
	"AnonPages:         12468 kB\n"
	"Mapped:            13432 kB\n"
	"Shmem:             12776 kB\n"
	"KReclaimable:      56388 kB\n"
	"Slab:              78296 kB\n"
	"SReclaimable:      56388 kB\n"
	"SUnreclaim:        21908 kB\n"
	"KernelStack:        1460 kB\n"
	"PageTables:         1912 kB\n"
	"SecPageTables:         0 kB\n"
	"NFS_Unstable:          0 kB\n"
	"Bounce:                0 kB\n"
	"WritebackTmp:          0 kB\n"
	"CommitLimit:    12341208 kB\n"
	"Committed_AS:      65216 kB\n"
	"VmallocTotal:   34359738367 kB\n"
	"VmallocUsed:       14252 kB\n"
	"VmallocChunk:          0 kB\n"
	"Percpu:              736 kB\n"
	"AnonHugePages:         0 kB\n"
	"ShmemHugePages:        0 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"FileHugePages:         0 kB\n"
	"FilePmdMapped:         0 kB\n"
	"Balloon:               0 kB\n"
	"HugePages_Total:       0\n"
	"HugePages_Free:        0\n"
	"HugePages_Rsvd:        0\n"
	"HugePages_Surp:        0\n"
	"Hugepagesize:       2048 kB\n"
	"Hugetlb:               0 kB\n"
	"DirectMap4k:       28672 kB\n"
	"DirectMap2M:     2068480 kB\n"
	"DirectMap1G:    25165824 kB\n";

static const char vmstat_sample[] =
	"nr_free_pages 813152\n"
	"nr_free_pages_blocks 801280\n"
	"nr_zone_inactive_anon 1563\n"
	"nr_zone_active_anon 382\n"
	"nr_zone_inactive_file 208650\n"
	"nr_zone_active_file 72738\n"
	"nr_zone_unevictable 4327\n"
	"nr_zone_write_pending 179\n"
	"nr_mlock 3727\n"
	"nr_zspages 0\n"
	"nr_free_cma 0\n"
	"numa_hit 1100570\n"
	"numa_miss 0\n"
	"numa_foreign 0\n"
	"numa_interleave 1124\n"
	"numa_local 1100570\n"
	"numa_other 0\n"
	"nr_inactive_anon 1576\n"
	"nr_active_anon 382\n"
	"nr_inactive_file 208650\n"
	"nr_active_file 72738\n"
	"nr_unevictable 4327\n"
	"nr_slab_reclaimable 14097\n"
	"nr_slab_unreclaimable 5477\n"
	"nr_isolated_anon 0\n"
	"nr_isolated_file 0\n"
	"workingset_nodes 0\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 0\n"
	"workingset_activate_anon 0\n"
	"workingset_activate_file 0\n"
	"workingset_restore_anon 0\n"
	"workingset_restore_file 0\n"
	"workingset_nodereclaim 0\n"
	"nr_anon_pages 3117\n"
	"nr_mapped 3358\n"
	"nr_file_pages 284582\n"
	"nr_dirty 179\n"
	"nr_writeback 0\n"
	"nr_shmem 3194\n"
	"nr_shmem_hugepages 0\n"
	"nr_shmem_pmdmapped 0\n"
	"nr_file_hugepages 0\n"
	"nr_file_pmdmapped 0\n"
	"nr_anon_transparent_hugepages 0\n"
	"nr_vmscan_write 0\n"
	"nr_vmscan_immediate_reclaim 0\n"
	"nr_dirtied 78636\n"
	"nr_written 53893\n"
	"nr_throttled_written 0\n"
	"nr_kernel_misc_reclaimable 0\n"
	"nr_foll_pin_acquired 0\n"
	"nr_foll_pin_released 0\n"
	"nr_kernel_stack 1460\n"
	"nr_page_table_pages 478\n"
	"nr_sec_page_table_pages 0\n"
	"nr_iommu_pages 0\n"
	"nr_swapcached 0\n"
	"pgpromote_success 0\n"
	"pgpromote_candidate 0\n"
	"pgpromote_candidate_nrl 0\n"
	"pgdemote_kswapd 0\n"
	"pgdemote_direct 0\n"
	"pgdemote_khugepaged 0\n"
	"pgdemote_proactive 0\n"
	"nr_hugetlb 0\n"
	"nr_balloon_pages 0\n"
	"nr_kernel_file_pages 0\n"
	"nr_dirty_threshold 1219270\n"
	"nr_dirty_background_threshold 608890\n"
	"nr_memmap_pages 0\n"
	"nr_memmap_boot_pages 98304\n"
	"pgpgin 948845\n"
	"pgpgout 218480\n"
	"pswpin 0\n"
	"pswpout 0\n"
	"pgalloc_dma 0\n"
	"pgalloc_dma32 0\n"
	"pgalloc_normal 1196865\n"
	"pgalloc_movable 0\n"
	"pgalloc_device 0\n"
	"allocstall_dma 0\n"
	"allocstall_dma32 0\n"
	"allocstall_normal 0\n"
	"allocstall_movable 0\n"
	"allocstall_device 0\n"
	"pgskip_dma 0\n"
	"pgskip_dma32 0\n"
	"pgskip_normal 0\n"
	"pgskip_movable 0\n"
	"pgskip_device 0\n"
	"pgfree 2018529\n"
	"pgactivate 51575\n"
	"pgdeactivate 0\n"
	"pglazyfree 0\n"
	"pgfault 1241890\n"
	"pgmajfault 705\n"
	"pglazyfreed 0\n"
	"pgrefill 0\n"
	"pgreuse 237289\n"
	"pgsteal_kswapd 0\n"
	"pgsteal_direct 0\n"
	"pgsteal_khugepaged 0\n"
	"pgsteal_proactive 0\n"
	"pgscan_kswapd 0\n"
	"pgscan_direct 0\n"
	"pgscan_khugepaged 0\n"
	"pgscan_proactive 0\n"
	"pgscan_direct_throttle 0\n"
	"pgscan_anon 0\n"
	"pgscan_file 0\n"
	"pgsteal_anon 0\n"
	"pgsteal_file 0\n"
	"zone_reclaim_success 0\n"
	"zone_reclaim_failed 0\n"
	"pginodesteal 0\n"
	"slabs_scanned 161\n"
	"kswapd_inodesteal 0\n"
	"kswapd_low_wmark_hit_quickly 0\n"
	"kswapd_high_wmark_hit_quickly 0\n"
	"pageoutrun 0\n"
	"pgrotated 10\n"
	"drop_pagecache 1\n"
	"drop_slab 2\n"
	"oom_kill 0\n"
	"numa_pte_updates 0\n"
	"numa_huge_pte_updates 0\n"
	"numa_hint_faults 0\n"
	"numa_hint_faults_local 0\n"
	"numa_pages_migrated 0\n"
	"pgmigrate_success 0\n"
	"pgmigrate_fail 0\n"
	"thp_migration_success 0\n"
	"thp_migration_fail 0\n"
	"thp_migration_split 0\n"
	"compact_migrate_scanned 0\n"
	"compact_free_scanned 0\n"
	"compact_isolated 0\n"
	"compact_stall 0\n"
	"compact_fail 0\n"
	"compact_success 0\n"
	"compact_daemon_wake 0\n"
	"compact_daemon_migrate_scanned 0\n"
	"compact_daemon_free_scanned 0\n"
	"htlb_buddy_alloc_success 0\n"
	"htlb_buddy_alloc_fail 0\n"
	"unevictable_pgs_culled 32930\n"
	"unevictable_pgs_scanned 0\n"
	"unevictable_pgs_rescued 28603\n"
	"unevictable_pgs_mlocked 32590\n"
	"unevictable_pgs_munlocked 28865\n"
	"unevictable_pgs_cleared 0\n"
	"unevictable_pgs_stranded 0\n"
	"thp_fault_alloc 0\n"
	"thp_fault_fallback 0\n"
	"thp_fault_fallback_charge 0\n"
	"thp_collapse_alloc 0\n"
	"thp_collapse_alloc_failed 0\n"
	"thp_file_alloc 0\n"
	"thp_file_fallback 0\n"
	"thp_file_fallback_charge 0\n"
	"thp_file_mapped 0\n"
	"thp_split_page 0\n"
	"thp_split_page_failed 0\n"
	"thp_deferred_split_page 0\n"
	"thp_underused_split_page 0\n"
	"thp_split_pmd 0\n"
	"thp_scan_exceed_none_pte 0\n"
	"thp_scan_exceed_swap_pte 0\n"
	"thp_scan_exceed_share_pte 0\n"
	"thp_split_pud 0\n"
	"thp_zero_page_alloc 0\n"
	"thp_zero_page_alloc_failed 0\n"
	"thp_swpout 0\n"
	"thp_swpout_fallback 0\n"
	"balloon_inflate 0\n"
	"balloon_deflate 0\n"
	"balloon_migrate 0\n"
	"swap_ra 0\n"
	"swap_ra_hit 0\n"
	"swpin_zero 0\n"
	"swpout_zero 0\n"
	"ksm_swpin_copy 0\n"
	"cow_ksm 0\n"
	"zswpin 0\n"
	"zswpout 0\n"
	"zswpwb 0\n"
	"direct_map_level2_splits 4\n"
	"direct_map_level3_splits 0\n"
	"direct_map_level2_collapses 0\n"
	"direct_map_level3_collapses 0\n"
	"nr_unstable 0\n";

static const char snmp_sample[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownPro"
	"tos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds Re"
	"asmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
	"Ip: 2 64 868 0 0 0 0 0 868 693 0 0 0 0 0 0 0 0 0 693\n"
	"Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs I"
	"nRedirects InEchos InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps Ou"
	"tMsgs OutErrors OutRateLimitGlobal OutRateLimitHost OutDestUnreachs OutTimeExcds OutParm"
	"Probs OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps OutTimestampReps Out"
	"AddrMasks OutAddrMaskReps\n"
	"Icmp: 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"IcmpMsg: InType3\n"
	"IcmpMsg: 1\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabReset"
	"s CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 13 3 0 0 0 841 667 0 0 2 0\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors Ig"
	"noredMulti MemErrors\n"
	"Udp: 26 0 0 27 0 0 0 0 0\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumError"
	"s IgnoredMulti MemErrors\n"
	"UdpLite: 0 0 0 0 0 0 0 0 0\n";

static const char netstat_sample[] =
	"TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled RcvPrun"
	"ed OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW TWRecycled TWKilled PAWSActi"
	"ve PAWSEstab BeyondWindow TSEcrRejected PAWSOldAck PAWSTimewait DelayedACKs DelayedACKLo"
	"cked DelayedACKLost ListenOverflows ListenDrops TCPHPHits TCPPureAcks TCPHPAcks TCPRenoR"
	"ecovery TCPSackRecovery TCPSACKReneging TCPSACKReorder TCPRenoReorder TCPTSReorder TCPFu"
	"llUndo TCPPartialUndo TCPDSACKUndo TCPLossUndo TCPLostRetransmit TCPRenoFailures TCPSack"
	"Failures TCPLossFailures TCPFastRetrans TCPSlowStartRetrans TCPTimeouts TCPLossProbes TC"
	"PLossProbeRecovery TCPRenoRecoveryFail TCPSackRecoveryFail TCPRcvCollapsed TCPBacklogCoa"
	"lesce TCPDSACKOldSent TCPDSACKOfoSent TCPDSACKRecv TCPDSACKOfoRecv TCPAbortOnData TCPAbo"
	"rtOnClose TCPAbortOnMemory TCPAbortOnTimeout TCPAbortOnLinger TCPAbortFailed TCPMemoryPr"
	"essures TCPMemoryPressuresChrono TCPSACKDiscard TCPDSACKIgnoredOld TCPDSACKIgnoredNoUndo"
	" TCPSpuriousRTOs TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure TCPSackShifted TCPSackMer"
	"ged TCPSackShiftFallback TCPBacklogDrop PFMemallocDrop TCPMinTTLDrop TCPDeferAcceptDrop "
	"IPReversePathFilter TCPTimeWaitOverflow TCPReqQFullDoCookies TCPReqQFullDrop TCPRetransF"
	"ail TCPRcvCoalesce TCPOFOQueue TCPOFODrop TCPOFOMerge TCPChallengeACK TCPSYNChallenge TC"
	"PFastOpenActive TCPFastOpenActiveFail TCPFastOpenPassive TCPFastOpenPassiveFail TCPFastO"
	"penListenOverflow TCPFastOpenCookieReqd TCPFastOpenBlackhole TCPSpuriousRtxHostQueues Bu"
	"syPollRxPackets TCPAutoCorking TCPFromZeroWindowAdv TCPToZeroWindowAdv TCPWantZeroWindow"
	"Adv TCPSynRetrans TCPOrigDataSent TCPHystartTrainDetect TCPHystartTrainCwnd TCPHystartDe"
	"layDetect TCPHystartDelayCwnd TCPACKSkippedSynRecv TCPACKSkippedPAWS TCPACKSkippedSeq TC"
	"PACKSkippedFinWait2 TCPACKSkippedTimeWait TCPACKSkippedChallenge TCPWinProbe TCPKeepAliv"
	"e TCPMTUPFail TCPMTUPSuccess TCPDelivered TCPDeliveredCE TCPAckCompressed TCPZeroWindowD"
	"rop TCPRcvQDrop TCPWqueueTooBig TCPFastOpenPassiveAltKey TcpTimeoutRehash TcpDuplicateDa"
	"taRehash TCPDSACKRecvSegs TCPDSACKIgnoredDubious TCPMigrateReqSuccess TCPMigrateReqFailu"
	"re TCPPLBRehash TCPAORequired TCPAOBad TCPAOKeyNotFound TCPAOGood TCPAODroppedIcmps\n"
	"TcpExt: 0 0 0 0 0 0 0 0 0 0 13 0 0 0 0 0 0 0 0 0 0 0 0 0 3 18 16 0 0 0 0 0 0 0 0 0 0 0 0"
	" 0 0 0 0 2 0 0 0 0 0 2 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 247"
	" 0 0 0 0 0 0 0 0 0 0 0 0 2 0 2 0 0 0 0 45 0 0 0 0 0 0 0 0 0 0 0 0 0 0 57 0 0 0 0 0 0 2 0"
	" 0 0 0 0 0 0 0 0 0 0\n"
	"IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts InOc"
	"tets OutOctets InMcastOctets OutMcastOctets InBcastOctets OutBcastOctets InCsumErrors In"
	"NoECTPkts InECT1Pkts InECT0Pkts InCEPkts ReasmOverlaps\n"
	"IpExt: 0 0 0 0 0 0 20708281 43939 0 0 0 0 0 868 0 0 0 0\n"
	"MPTcpExt: MPCapableSYNRX MPCapableSYNTX MPCapableSYNACKRX MPCapableACKRX MPCapableFallba"
	"ckACK MPCapableFallbackSYNACK MPCapableSYNTXDrop MPCapableSYNTXDisabled MPCapableEndpAtt"
	"empt MPFallbackTokenInit MPTCPRetrans MPJoinNoTokenFound MPJoinSynRx MPJoinSynBackupRx M"
	"PJoinSynAckRx MPJoinSynAckBackupRx MPJoinSynAckHMacFailure MPJoinAckRx MPJoinAckHMacFail"
	"ure MPJoinRejected MPJoinSynTx MPJoinSynTxCreatSkErr MPJoinSynTxBindErr MPJoinSynTxConne"
	"ctErr DSSNotMatching DSSCorruptionFallback DSSCorruptionReset InfiniteMapTx InfiniteMapR"
	"x DSSNoMatchTCP DataCsumErr OFOQueueTail OFOQueue OFOMerge NoDSSInWindow DuplicateData A"
	"ddAddr AddAddrTx AddAddrTxDrop EchoAdd EchoAddTx EchoAddTxDrop PortAdd AddAddrDrop MPJoi"
	"nPortSynRx MPJoinPortSynAckRx MPJoinPortAckRx MismatchPortSynRx MismatchPortAckRx RmAddr"
	" RmAddrDrop RmAddrTx RmAddrTxDrop RmSubflow MPPrioTx MPPrioRx MPFailTx MPFailRx MPFastcl"
	"oseTx MPFastcloseRx MPRstTx MPRstRx SubflowStale SubflowRecover SndWndShared RcvWndShare"
	"d RcvWndConflictUpdate RcvWndConflict MPCurrEstab Blackhole MPCapableDataFallback MD5Sig"
	"Fallback DssFallback SimultConnectFallback FallbackFailed WinProbe\n"
	"MPTcpExt: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static const char diskstats_sample[] =
	"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       1 loop1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       2 loop2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       3 loop3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       4 loop4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       5 loop5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       6 loop6 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   7       7 loop7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	" 254       0 vda 27224 5098 1897690 7297 4496 5772 436960 2405 0 5364 10161 4248 16 1320"
	"80 422 652 36\n"
	" 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static const char netdev_sample[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
	"drop fifo colls carrier compressed\n"
	"    lo:    3319      30    0    0    0     0          0         0     3319      30    0 "
	"   0    0     0       0          0\n"
	"  ifb0:       0       0    0    0    0     0          0         0        0       0    0 "
	"   0    0     0       0          0\n"
	"  ifb1:       0       0    0    0    0     0          0         0        0       0    0 "
	"   0    0     0       0          0\n"
	"  eth0: 20717186     844    0    0    0     0          0         0    50912     674    0"
	"    0    0     0       0          0\n";

static const char file_nr_sample[] =
	"465\t0\t2465610\n";

static const char pid_stat_sample[] =
	"1 (process_api) S 0 0 0 0 -1 4194560 43709 366394 69 195 64 167 1630 416 20 0 12 0 10 43"
	"429888 3724 18446744073709551615 1 1 0 0 0 0 0 4096 1088 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0\n";

static const char pid_status_sample[] =
	"Name:\tprocess_api\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t1\n"
	"Ngid:\t0\n"
	"Pid:\t1\n"
	"PPid:\t0\n"
	"TracerPid:\t0\n"
	"Uid:\t0\t0\t0\t0\n"
	"Gid:\t0\t0\t0\t0\n"
	"FDSize:\t512\n"
	"Groups:\t \n"
	"NStgid:\t1\n"
	"NSpid:\t1\n"
	"NSpgid:\t0\n"
	"NSsid:\t0\n"
	"Kthread:\t0\n"
	"VmPeak:\t   50336 kB\n"
	"VmSize:\t   42412 kB\n"
	"VmLck:\t   42380 kB\n"
	"VmPin:\t       0 kB\n"
	"VmHWM:\t   24784 kB\n"
	"VmRSS:\t   14908 kB\n"
	"RssAnon:\t    6028 kB\n"
	"RssFile:\t       8 kB\n"
	"RssShmem:\t    8872 kB\n"
	"VmData:\t   32400 kB\n"
	"VmStk:\t     132 kB\n"
	"VmExe:\t    7788 kB\n"
	"VmLib:\t       8 kB\n"
	"VmPTE:\t     120 kB\n"
	"VmSwap:\t       0 kB\n"
	"HugetlbPages:\t       0 kB\n"
	"CoreDumping:\t0\n"
	"THP_enabled:\t1\n"
	"untag_mask:\t0xffffffffffffffff\n"
	"Threads:\t12\n"
	"SigQ:\t0/96343\n"
	"SigPnd:\t0000000000000000\n"
	"ShdPnd:\t0000000000000000\n"
	"SigBlk:\t0000000000000000\n"
	"SigIgn:\t0000000000001000\n"
	"SigCgt:\t0000000000000440\n"
	"CapInh:\t0000000000000000\n"
	"CapPrm:\t000001ffffffffff\n"
	"CapEff:\t000001ffffffffff\n"
	"CapBnd:\t000001fffeffffff\n"
	"CapAmb:\t0000000000000000\n"
	"NoNewPrivs:\t0\n"
	"Seccomp:\t0\n"
	"Seccomp_filters:\t0\n"
	"Speculation_Store_Bypass:\tthread vulnerable\n"
	"SpeculationIndirectBranch:\tconditional enabled\n"
	"Cpus_allowed:\t3\n"
	"Cpus_allowed_list:\t0-1\n"
	"Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,0"
	"0000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000"
	",00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,000000"
	"00,00000000,00000000,00000000,00000001\n"
	"Mems_allowed_list:\t0\n"
	"voluntary_ctxt_switches:\t332\n"
	"nonvoluntary_ctxt_switches:\t25\n";

static const char pid_io_sample[] =
	"rchar: 1785941\n"
	"wchar: 101691\n"
	"syscr: 672\n"
	"syscw: 30\n"
	"read_bytes: 0\n"
	"write_bytes: 102400\n"
	"cancelled_write_bytes: 0\n";

static const char limits_sample[] =
	"Limit                     Soft Limit           Hard Limit           Units     \n"
	"Max cpu time              unlimited            unlimited            seconds   \n"
	"Max file size             unlimited            unlimited            bytes     \n"
	"Max data size             unlimited            unlimited            bytes     \n"
	"Max stack size            8388608              unlimited            bytes     \n"
	"Max core file size        0                    unlimited            bytes     \n"
	"Max resident set          unlimited            unlimited            bytes     \n"
	"Max processes             96343                96343                processes \n"
	"Max open files            20000                20000                files     \n"
	"Max locked memory         unlimited            unlimited            bytes     \n"
	"Max address space         unlimited            unlimited            bytes     \n"
	"Max file locks            unlimited            unlimited            locks     \n"
	"Max pending signals       96343                96343                signals   \n"
	"Max msgqueue size         819200               819200               bytes     \n"
	"Max nice priority         0                    0                    \n"
	"Max realtime priority     0                    0                    \n"
	"Max realtime timeout      unlimited            unlimited            us        \n";

/* Block devices of older kernels: 14 fields (< 4.18), 18 (4.18 to 5.4), 20 (5.5 on). */
static const char diskstats_old[] =
	"   8       0 sda 104 19 8026 156 3 1 32 8 0 96 164\n"
	"   8       1 sda1 50 9 4000 70 1 0 8 2 0 40 72 7 0 56 3\n"
	" 259       0 nvme0n1 146623 18 11003366 56419 1082405 1086014 42342810 1165862 0 "
	"543268 1245426 11 12 13 14 15 16\n";

/* /proc/interrupts of the same VM (x86_64, 6.18, 2 CPUs): no MCE line there. */
static const char irq_sample[] =
	"           CPU0       CPU1       \n"
	" 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
	" 25:          0          1  IO-APIC   6-edge      ACPI:Ged\n"
	" 26:          0         16  IO-APIC   4-edge      ttyS0\n"
	" 28:          0          0 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n"
	" 29:          0          0 PCI-MSIX-0000:00:01.0   1-edge      virtio0-inflate\n"
	" 30:          0          0 PCI-MSIX-0000:00:01.0   2-edge      virtio0-deflate\n"
	" 31:          0        238 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats\n"
	" 32:         65          0 PCI-MSIX-0000:00:01.0   4-edge      virtio0-reporting_vq\n"
	" 33:          0          0 PCI-MSIX-0000:00:05.0   0-edge      virtio4-config\n"
	" 34:         32          0 PCI-MSIX-0000:00:05.0   1-edge      virtio4-input\n"
	" 35:          0          1 PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
	" 36:          0      60362 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	" 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
	" 38:          0       2168 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
	" 39:       1717          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
	" 40:          0          0 PCI-MSIX-0000:00:04.0   0-edge      virtio3-config\n"
	" 41:       1990          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
	" 42:          0       7647 PCI-MSIX-0000:00:04.0   2-edge      virtio3-tx\n"
	" 43:          1          0 PCI-MSIX-0000:00:04.0   3-edge      virtio3-event\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:     117352     115287   Local timer interrupts\n"
	"SPU:          0          0   Spurious interrupts\n"
	"PMI:          0          0   Performance monitoring interrupts\n"
	"IWI:          0          1   IRQ work interrupts\n"
	"RTR:          0          0   APIC ICR read retries\n"
	"RES:      44465      40262   Rescheduling interrupts\n"
	"CAL:      73975      44357   Function call interrupts\n"
	"TLB:       4168       4138   TLB shootdowns\n"
	"TRM:          0          0   Thermal event interrupts\n"
	"HYP:          2          2   Hypervisor callback interrupts\n"
	"ERR:          0\n"
	"MIS:          0\n"
	"PIN:          0          0   Posted-interrupt notification event\n"
	"NPI:          0          0   Nested posted-interrupt event\n"
	"PIW:          0          0   Posted-interrupt wakeup event\n";

/*
 * /proc/interrupts of a 4-CPU Intel x86_64 host, written for this test in the
 * kernel's layout (header "%*s" then "CPU%-8d"; counts "%10u"): IRQs with
 * several actions and a ':' in the description, MSI vectors, the machine check
 * lines (one MCE taken on CPU2), and the single-count ERR/MIS lines.
 */
static const char irq_mce_sample[] =
	"            CPU0       CPU1       CPU2       CPU3       \n"
	"   0:         34          0          0          0   IO-APIC   2-edge      timer\n"
	"   1:          0          0          0          9   IO-APIC   1-edge      i8042\n"
	"   8:          0          1          0          0   IO-APIC   8-edge      rtc0\n"
	"   9:          0         12          0          0   IO-APIC   9-fasteoi   acpi\n"
	"  16:          0          0         25          0   IO-APIC  16-fasteoi   "
	"ehci_hcd:usb1, i801_smbus\n"
	" 120:          0          0          0          0   DMAR-MSI   0-edge      dmar0\n"
	" 122:     402213          0          0      17311   IR-PCI-MSI 327680-edge      xhci_hcd\n"
	" 123:          0    9482117          0          0   IR-PCI-MSI 520192-edge      "
	"enp0s31f6\n"
	" 124:          0          0   31337001          0   IR-PCI-MSI 1048576-edge      nvme0q0\n"
	"NMI:        112        108         97        103   Non-maskable interrupts\n"
	"LOC:   48213377   47109821   46822190   47532614   Local timer interrupts\n"
	"SPU:          0          0          0          0   Spurious interrupts\n"
	"PMI:        112        108         97        103   Performance monitoring interrupts\n"
	"IWI:       2331       1982       2107       1876   IRQ work interrupts\n"
	"RTR:          0          0          0          0   APIC ICR read retries\n"
	"RES:    1820334    1766521    1703390    1689112   Rescheduling interrupts\n"
	"CAL:     423311     498812     455103     467734   Function call interrupts\n"
	"TLB:     201334     198876     203311     199904   TLB shootdowns\n"
	"TRM:          0          0          0          0   Thermal event interrupts\n"
	"THR:          0          0          0          0   Threshold APIC interrupts\n"
	"DFR:          0          0          0          0   Deferred Error APIC interrupts\n"
	"MCE:          0          0          1          0   Machine check exceptions\n"
	"MCP:       1607       1607       1607       1607   Machine check polls\n"
	"ERR:          0\n"
	"MIS:          0\n"
	"PIN:          0          0          0          0   Posted-interrupt notification event\n"
	"NPI:          0          0          0          0   Nested posted-interrupt event\n"
	"PIW:          0          0          0          0   Posted-interrupt wakeup event\n";

/* ---- helpers ---- */

/* A heap copy of exactly n bytes: ASan flags a parser that reads s[n]. */
static char *dup_exact(const char *s, size_t n)
{
	char *b = malloc(n);

	if (!b && n)
		abort();
	if (n)
		memcpy(b, s, n);
	return b;
}

/* Offset just past the '\n' of the line holding needle. */
static size_t line_end(const char *s, const char *needle)
{
	const char *p = strstr(s, needle), *nl;

	if (!p)
		abort();
	nl = strchr(p + 1, '\n');
	if (!nl)
		abort();
	return nl - s + 1;
}

static size_t count_lines(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

struct kv_pair {
	char key[64];
	char val[64];
};

struct kv_list {
	struct kv_pair pair[512];
	int n;
	int dropped;  /* key or value too long for the list: must stay 0 */
	int stop_at;  /* when non-zero, the n-th pair returns 42 */
};

static int kv_collect(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	struct kv_list *l = arg;

	if (l->n == (int)ARRAY_SIZE(l->pair) || klen >= 64 || vlen >= 64) {
		l->dropped++;
		return 0;
	}
	memcpy(l->pair[l->n].key, key, klen);
	l->pair[l->n].key[klen] = '\0';
	memcpy(l->pair[l->n].val, val, vlen);
	l->pair[l->n].val[vlen] = '\0';
	l->n++;
	return l->stop_at && l->n == l->stop_at ? 42 : 0;
}

static const char *kv_find(const struct kv_list *l, const char *key)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->pair[i].key, key))
			return l->pair[i].val;
	return NULL;
}

/* Whether part's pairs are the first part->n pairs of full. */
static int kv_is_prefix(const struct kv_list *part, const struct kv_list *full)
{
	int i;

	if (part->n > full->n)
		return 0;
	for (i = 0; i < part->n; i++)
		if (strcmp(part->pair[i].key, full->pair[i].key) ||
		    strcmp(part->pair[i].val, full->pair[i].val))
			return 0;
	return 1;
}

static struct kv_list *kv_list_new(void)
{
	struct kv_list *l = calloc(1, sizeof(*l));

	if (!l)
		abort();
	return l;
}

struct disk_list {
	struct diskstat d[32];
	int n;
	int stop_at;
};

static int disk_collect(const struct diskstat *ds, void *arg)
{
	struct disk_list *l = arg;

	if (l->n < (int)ARRAY_SIZE(l->d))
		l->d[l->n] = *ds;
	l->n++;
	return l->stop_at && l->n == l->stop_at ? 7 : 0;
}

struct netdev_list {
	struct netdev d[16];
	int n;
};

static int netdev_collect(const struct netdev *nd, void *arg)
{
	struct netdev_list *l = arg;

	if (l->n < (int)ARRAY_SIZE(l->d))
		l->d[l->n] = *nd;
	l->n++;
	return 0;
}

/* ---- counter__delta ---- */

static void test_mountinfo_unescape(void)
{
	char a[] = "/mnt/with\\040space\\011tab\\012nl\\134bs";
	char b[] = "/trailing\\04";    /* cut escape: left as it is */
	char c[] = "/high\\477";       /* not an octal byte (4 > 3): left as it is */
	char d[] = "";

	parse_mountinfo_unescape(a);
	ok(!strcmp(a, "/mnt/with space\ttab\nnl\\bs"), "mountinfo: \\040 \\011 \\012 \\134 unescaped");
	parse_mountinfo_unescape(b);
	ok(!strcmp(b, "/trailing\\04"), "mountinfo: a cut escape stays");
	parse_mountinfo_unescape(c);
	ok(!strcmp(c, "/high\\477"), "mountinfo: an escape past \\377 stays");
	parse_mountinfo_unescape(d);
	ok(!strcmp(d, ""), "mountinfo: empty");
}

static void test_counter_delta(void)
{
	int reset = 0;

	is_int(counter__delta(100, 250, &reset), 150, "delta: counter went up");
	is_int(reset, 0, "delta: no reset flagged when going up");
	is_int(counter__delta(7, 7, &reset), 0, "delta: unchanged counter");
	ok(counter__delta(0, UINT64_MAX, &reset) == UINT64_MAX, "delta: full 64-bit range");

	/* A 32-bit counter near the top wraps: 0xfffffff0 -> 0x10 is 0x20 further on. */
	ok(counter__delta(0xfffffff0u, 0x10, &reset) == 0x20, "delta: 32-bit wrap distance");
	is_int(reset, 0, "delta: 32-bit wrap is not a reset");
	ok(counter__delta(UINT32_MAX, 0, &reset) == 1, "delta: wrap from UINT32_MAX to 0 is 1");
	reset = 0;
	ok(counter__delta(5, 4, &reset) == 0, "delta: a small counter stepping back is not a wrap");
	is_int(reset, 1, "delta: ... it is flagged as a reset");
	reset = 0;
	ok(counter__delta(700, 699, &reset) == 0, "delta: /proc/stat iowait 700 -> 699 adds nothing");
	ok(counter__delta(0x80000000u, 0x10, NULL) == 0, "delta: mid-range down to small is a reset");
	ok(counter__delta(0xfffffff0u, 0x20000000u, NULL) == 0,
	   "delta: from the top to mid-range is not a plausible wrap");

	/* Past 32 bits a decrease can only be a restart (interface re-created, reboot). */
	ok(counter__delta(5000000000ull, 12, &reset) == 0, "delta: 64-bit counter backwards is 0");
	is_int(reset, 1, "delta: 64-bit counter backwards sets reset");
	reset = 0;
	ok(counter__delta((uint64_t)UINT32_MAX + 1, (uint64_t)UINT32_MAX, &reset) == 0,
	   "delta: prev just past 32 bits going down is a reset");
	is_int(reset, 1, "delta: ... and flags it");
	ok(counter__delta(UINT64_MAX, 0, NULL) == 0, "delta: reset with NULL flag pointer");
}

/* ---- parse_pid_schedstat ---- */

static void test_schedstat(void)
{
	static const char real[] = "96705466 20009166 396\n";
	struct pid_schedstat ss;
	int bad = 0;

	is_int(parse_pid_schedstat(real, strlen(real), &ss), 0, "schedstat: real sample parses");
	ok(ss.run_ns == 96705466 && ss.wait_ns == 20009166 && ss.slices == 396,
	   "schedstat: run, wait and timeslices");
	for (size_t cut = 0; cut < strlen(real); cut++) {
		char *copy = malloc(cut ? cut : 1);

		memcpy(copy, real, cut);
		bad += parse_pid_schedstat(copy, cut, &ss) != -EINVAL;
		free(copy);
	}
	is_int(bad, 0, "schedstat: every cut read (no newline yet) is refused, never a smaller number");
	is_int(parse_pid_schedstat("1 2\n", 4, &ss), -EINVAL, "schedstat: two fields is refused");
	is_int(parse_pid_schedstat("1 2 x\n", 6, &ss), -EINVAL, "schedstat: a word is refused");
	is_int(parse_pid_schedstat("1 99999999999999999999 3\n", 25, &ss), -EINVAL,
	       "schedstat: overflow is refused");
	is_int(parse_pid_schedstat(NULL, 0, &ss), -EINVAL, "schedstat: NULL");
}

/* ---- parse_kv_u64, parse_kv_i64 ---- */

static void test_kv_numbers(void)
{
	static const struct {
		const char *text;
		int to_bytes;
		int rc;
		uint64_t want;
	} u[] = {
		{ "0", 0, 0, 0 },
		{ "24682416 kB", 0, 0, 24682416 },
		{ "24682416 kB", 1, 0, 24682416ull * 1024 },
		{ "1764kB", 1, 0, 1764 * 1024 },
		{ "  7", 0, 0, 7 },
		{ "0/96343", 0, 0, 0 },           /* SigQ: the leading integer */
		{ "12 MB", 1, 0, 12 },            /* only kB is a unit the kernel prints */
		{ "18446744073709551615", 0, 0, UINT64_MAX },
		{ "000000000000000000000000042", 0, 0, 42 }, /* long, but fits */
		{ "18014398509481983 kB", 1, 0, UINT64_MAX - 1023 },
		{ "18446744073709551616", 0, -EINVAL, 0 },   /* UINT64_MAX + 1 */
		{ "99999999999999999999", 0, -EINVAL, 0 },   /* 20 digits, too big */
		{ "123456789012345678901", 0, -EINVAL, 0 },  /* 21 digits */
		{ "18014398509481984 kB", 1, -EINVAL, 0 },   /* 2^54 kB is 2^64 bytes */
		{ "18014398509481984 kB", 0, 0, 18014398509481984ull },
		{ "-1", 0, -EINVAL, 0 },
		{ "kB", 1, -EINVAL, 0 },
		{ "S (sleeping)", 0, -EINVAL, 0 },
		{ "", 0, -EINVAL, 0 },
	};
	static const struct {
		const char *text;
		int rc;
		int64_t want;
	} s[] = {
		{ "-1", 0, -1 },
		{ "+5", 0, 5 },
		{ "812", 0, 812 },
		{ "9223372036854775807", 0, INT64_MAX },
		{ "-9223372036854775808", 0, INT64_MIN },
		{ "9223372036854775808", -EINVAL, 0 },
		{ "-9223372036854775809", -EINVAL, 0 },
		{ "-99999999999999999999999", -EINVAL, 0 },
		{ "-", -EINVAL, 0 },
		{ "x1", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	uint64_t v;
	int64_t sv;
	size_t i;
	char *b;

	for (i = 0; i < ARRAY_SIZE(u); i++) {
		size_t n = strlen(u[i].text);
		int rc;

		b = dup_exact(u[i].text, n);
		v = 0xdead;
		rc = parse_kv_u64(b, n, u[i].to_bytes, &v);
		is_int(rc, u[i].rc, "kv_u64 '%s' to_bytes=%d: rc", u[i].text, u[i].to_bytes);
		if (!u[i].rc)
			ok(v == u[i].want, "kv_u64 '%s': value %llu", u[i].text,
			   (unsigned long long)v);
		else
			ok(v == 0xdead, "kv_u64 '%s': out untouched on error", u[i].text);
		free(b);
	}
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		size_t n = strlen(s[i].text);
		int rc;

		b = dup_exact(s[i].text, n);
		sv = 0xdead;
		rc = parse_kv_i64(b, n, &sv);
		is_int(rc, s[i].rc, "kv_i64 '%s': rc", s[i].text);
		if (!s[i].rc)
			ok(sv == s[i].want, "kv_i64 '%s': value %lld", s[i].text, (long long)sv);
		free(b);
	}

	/* vlen bounds the number even when digits follow in memory. */
	is_int(parse_kv_u64("12345", 3, 0, &v), 0, "kv_u64 stops at vlen");
	is_int(v, 123, "kv_u64 read only vlen bytes");
	is_int(parse_kv_u64(NULL, 0, 1, &v), -EINVAL, "kv_u64 NULL, 0");
	is_int(parse_kv_i64(NULL, 0, &sv), -EINVAL, "kv_i64 NULL, 0");
}

/* ---- /proc/stat ---- */

static void test_proc_stat_sample(void)
{
	struct proc_stat ps;

	is_int(parse_proc_stat(S(stat_sample), &ps), 0, "stat: real sample parses");
	is_int(ps.total.user, 3897, "stat: total user");
	is_int(ps.total.system, 1265, "stat: total system");
	is_int(ps.total.idle, 99828, "stat: total idle");
	is_int(ps.total.iowait, 517, "stat: total iowait");
	is_int(ps.total.softirq, 76, "stat: total softirq");
	is_int(ps.total.steal, 2648, "stat: total steal");
	is_int(ps.ncpu, 2, "stat: two CPUs");
	ok(ps.ncpu == 2 && ps.cpu_id[0] == 0 && ps.cpu_id[1] == 1, "stat: cpu ids 0 1");
	ok(ps.ncpu == 2 && ps.cpu[0].user == 2350 && ps.cpu[1].idle == 50404 &&
	   ps.cpu[1].steal == 1321, "stat: per-CPU values");
	is_int(ps.ctxt, 243218, "stat: ctxt");
	is_int(ps.btime, 1795274377, "stat: btime");
	is_int(ps.processes, 4502, "stat: processes");
	is_int(ps.procs_running, 2, "stat: procs_running");
	is_int(ps.procs_blocked, 0, "stat: procs_blocked");
	is_int(ps.intr, 154889, "stat: intr total");
	is_int(ps.intr_numbered, 38009, "stat: intr, the numbered IRQs summed");
	is_int(ps.softirq, 95954, "stat: softirq total");
	is_int(ps.have, PROC_STAT_CTXT | PROC_STAT_BTIME | PROC_STAT_PROCESSES |
	       PROC_STAT_PROCS_RUNNING | PROC_STAT_PROCS_BLOCKED | PROC_STAT_INTR | PROC_STAT_SOFTIRQ,
	       "stat: have says every line was read");
	proc_stat__free(&ps);
	ok(!ps.cpu && !ps.cpu_id && !ps.ncpu, "stat: free clears the arrays");
	proc_stat__free(&ps);
	proc_stat__free(NULL);
	ok(!ps.cpu && !ps.cpu_id && !ps.ncpu, "stat: free twice and free(NULL) are harmless");
}

static void test_proc_stat_truncation(void)
{
	size_t full = sizeof(stat_sample) - 1, len;
	size_t t_total = line_end(stat_sample, "cpu "), t_cpu0 = line_end(stat_sample, "cpu0 ");
	size_t t_cpu1 = line_end(stat_sample, "cpu1 "), t_ctxt = line_end(stat_sample, "ctxt ");
	size_t t_blocked = line_end(stat_sample, "procs_blocked ");
	int bad = 0;

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(stat_sample, len);
		struct proc_stat ps;
		int rc = parse_proc_stat(b, len, &ps);
		int want_rc = len < t_total ? -EINVAL : 0;
		int want_ncpu = len >= t_cpu1 ? 2 : len >= t_cpu0 ? 1 : 0;
		uint64_t want_ctxt = len >= t_ctxt ? 243218 : 0;

		/* "ctxt 243218" cut to "ctxt 2432" must not read as 2432. */
		if (rc != want_rc || ps.ncpu != want_ncpu || ps.ctxt != want_ctxt ||
		    (rc == 0 && ps.total.user != 3897) ||
		    (want_ncpu == 2 && ps.cpu[1].guest_nice != 0) ||
		    (rc != 0 && (ps.cpu || ps.cpu_id))) {
			if (!bad)
				printf("# stat cut at %zu: rc %d ncpu %d ctxt %llu\n", len, rc,
				       ps.ncpu, (unsigned long long)ps.ctxt);
			bad++;
		}
		proc_stat__free(&ps);
		free(b);
	}
	is_int(bad, 0, "stat: every truncation 0..%zu gives exactly the complete lines", full);
	ok(t_total < t_cpu0 && t_cpu0 < t_cpu1 && t_cpu1 < t_ctxt && t_ctxt < t_blocked,
	   "stat: sample line order as expected by the truncation test");
}

static void test_proc_stat_counts(void)
{
	size_t t_intr = line_end(stat_sample, "intr "), t_soft = line_end(stat_sample, "softirq ");
	struct proc_stat ps;
	int bad = 0;

	/* Every cut: intr and softirq are there exactly when their line is complete. */
	for (size_t len = line_end(stat_sample, "cpu "); len < sizeof(stat_sample); len++) {
		char *b = dup_exact(stat_sample, len);
		int rc = parse_proc_stat(b, len, &ps);
		bool intr = ps.have & PROC_STAT_INTR, soft = ps.have & PROC_STAT_SOFTIRQ;

		if (rc || intr != (len >= t_intr) || soft != (len >= t_soft) ||
		    (intr && (ps.intr != 154889 || ps.intr_numbered != 38009))) {
			if (!bad)
				printf("# stat counts cut at %zu: rc %d intr %d softirq %d\n", len, rc,
				       intr, soft);
			bad++;
		}
		proc_stat__free(&ps);
		free(b);
	}
	is_int(bad, 0, "stat: intr and softirq only from their complete lines, at every cut");

	is_int(parse_proc_stat(S("cpu 1 2 3 4\nintr 5 1 x 2\nsoftirq 3 1 2\n"), &ps), 0,
	       "stat: hostile intr line");
	ok(!(ps.have & PROC_STAT_INTR) && ps.have & PROC_STAT_SOFTIRQ && ps.softirq == 3,
	   "stat: an intr field that is no number gives no intr, softirq still read");
	proc_stat__free(&ps);
	parse_proc_stat(S("cpu 1 2 3 4\nintr 1 18446744073709551615 1\nsoftirq x\n"), &ps);
	ok(!(ps.have & (PROC_STAT_INTR | PROC_STAT_SOFTIRQ)),
	   "stat: a numbered sum past 64 bits and a softirq without its total are no reading");
	proc_stat__free(&ps);
	parse_proc_stat(S("cpu 1 2 3 4\nintr 7\n"), &ps);
	ok(ps.have & PROC_STAT_INTR && ps.intr == 7 && ps.intr_numbered == 0,
	   "stat: intr with no numbered IRQ sums to 0");
	proc_stat__free(&ps);
}

static void test_proc_stat_hostile(void)
{
	static const char sparse[] =
		"cpu  10 0 10 100 0 0 0 0 0 0\n"
		"cpu0 1 0 1 10 0 0 0 0 0 0\n"
		"cpu2 2 0 2 20 0 0 0 0 0 0\n"
		"cpu5 5 0 5 50 0 0 0 0 0 0\n"
		"cpu1023 1023 0 0 0 0 0 0 0 0 0\n"
		"cpu4095 4095 0 0 0 0 0 0 0 0 0\n"
		"intr 1 2 3\n"
		"ctxt 99\n";
	/* A 2.6.10 kernel: 7 columns; then lines that are not a kernel's. */
	static const char odd[] =
		"cpu  1 2 3 4 5 6 7\n"
		"cpu0 1 2 3 4 5 6 7\n"
		"cpu1 1 2 3\n"                                        /* too few columns */
		"cpu2 1 2 3 18446744073709551616 0 0 0 0 0 0\n"       /* overflow */
		"cpu3 1 2 3 4x 0\n"                                   /* junk in a number */
		"cpu99999999999 1 2 3 4 0 0 0 0 0 0\n"                /* id past INT_MAX */
		"cpu4 9 9 9 9 9 9 9 9 9 9 9 9\n"                      /* future extra columns */
		"cpu4 8 8 8 8\n"                                      /* repeated id */
		"cpu1 7 7 7 7\n"                                      /* going down */
		"cpux 1 2 3 4\n"
		"ctxt 123456789012345678901234\n"                     /* overflow: left at 0 */
		"processes 12 13\n"                                   /* trailing junk: left at 0 */
		"btime 77\n";
	struct proc_stat ps;
	char *big, *p;
	int i, bad = 0, rc;

	is_int(parse_proc_stat(S(sparse), &ps), 0, "stat sparse: parses");
	is_int(ps.ncpu, 5, "stat sparse: five online CPUs");
	ok(ps.ncpu == 5 && ps.cpu_id[0] == 0 && ps.cpu_id[1] == 2 && ps.cpu_id[2] == 5 &&
	   ps.cpu_id[3] == 1023 && ps.cpu_id[4] == 4095, "stat sparse: ids 0 2 5 1023 4095");
	ok(ps.ncpu == 5 && ps.cpu[2].user == 5 && ps.cpu[2].idle == 50 && ps.cpu[3].user == 1023 &&
	   ps.cpu[4].user == 4095, "stat sparse: values follow their ids");
	is_int(ps.ctxt, 99, "stat sparse: ctxt after the CPUs");
	proc_stat__free(&ps);

	is_int(parse_proc_stat(S(odd), &ps), 0, "stat odd: parses");
	is_int(ps.total.idle, 4, "stat odd: 7-column total line");
	is_int(ps.total.softirq, 7, "stat odd: 7th column is softirq");
	is_int(ps.total.steal, 0, "stat odd: missing steal is 0");
	is_int(ps.ncpu, 2, "stat odd: only cpu0 and the first cpu4 kept");
	ok(ps.ncpu == 2 && ps.cpu_id[0] == 0 && ps.cpu_id[1] == 4, "stat odd: ids 0 and 4");
	ok(ps.ncpu == 2 && ps.cpu[1].guest_nice == 9, "stat odd: extra columns ignored");
	is_int(ps.ctxt, 0, "stat odd: overflowing ctxt not wrapped, left 0");
	is_int(ps.processes, 0, "stat odd: processes with junk left 0");
	is_int(ps.btime, 77, "stat odd: btime");
	proc_stat__free(&ps);

	/* 6000 CPUs numbered 0, 3, 6, ...: many reallocations. */
	big = malloc(6000 * 40 + 64);
	if (!big)
		abort();
	p = big + sprintf(big, "cpu  1 2 3 4 5 6 7 8 9 10\n");
	for (i = 0; i < 6000; i++)
		p += sprintf(p, "cpu%d %d 0 0 %d 0 0 0 0 0 0\n", i * 3, i, i + 1);
	rc = parse_proc_stat(big, p - big, &ps);
	is_int(rc, 0, "stat 6000 CPUs: parses");
	is_int(ps.ncpu, 6000, "stat 6000 CPUs: all kept");
	for (i = 0; i < ps.ncpu; i++)
		bad += ps.cpu_id[i] != i * 3 || ps.cpu[i].user != (uint64_t)i ||
		       ps.cpu[i].idle != (uint64_t)i + 1;
	is_int(bad, 0, "stat 6000 CPUs: ids and values intact after growth");
	is_int(ps.total.guest_nice, 10, "stat 6000 CPUs: total");
	proc_stat__free(&ps);
	free(big);

	ps.ncpu = 99;
	is_int(parse_proc_stat(S("cpu0 1 2 3 4\nctxt 5\n"), &ps), -EINVAL,
	       "stat: no aggregate cpu line is -EINVAL");
	ok(ps.ncpu == 0 && !ps.cpu && !ps.cpu_id, "stat: nothing left allocated on error");
	is_int(parse_proc_stat(S("cpu  1 2 3 4"), &ps), -EINVAL,
	       "stat: aggregate line without its newline is -EINVAL");
	is_int(parse_proc_stat("", 0, &ps), -EINVAL, "stat: empty is -EINVAL");
	is_int(parse_proc_stat(NULL, 0, &ps), -EINVAL, "stat: NULL, 0 is -EINVAL");
	is_int(parse_proc_stat(S("\n\n\xff\xfe\0\n"), &ps), -EINVAL, "stat: binary junk");
}

/* ---- /proc/loadavg ---- */

static void test_loadavg(void)
{
	size_t full = sizeof(loadavg_sample) - 1, len;
	struct loadavg la;
	int bad = 0;

	is_int(parse_loadavg(S(loadavg_sample), &la), 0, "loadavg: real sample");
	ok(la.load1 == 0.23 && la.load5 == 0.12 && la.load15 == 0.07, "loadavg: 0.23 0.12 0.07");
	is_int(la.runnable, 4, "loadavg: runnable");
	is_int(la.threads, 89, "loadavg: threads");
	is_int(la.last_pid, 4503, "loadavg: last pid");

	/* One line: nothing is known until its '\n'. */
	for (len = 0; len < full; len++) {
		char *b = dup_exact(loadavg_sample, len);

		la.load1 = 9;
		if (parse_loadavg(b, len, &la) != -EINVAL || la.load1 != 0 || la.last_pid != 0)
			bad++;
		free(b);
	}
	is_int(bad, 0, "loadavg: every truncation is -EINVAL with a zeroed result");

	is_int(parse_loadavg(S("12.5 3 100.125 1/2 3\n"), &la), 0, "loadavg: 0 to 3 decimals");
	ok(la.load1 == 12.5 && la.load5 == 3.0 && la.load15 == 100.125, "loadavg: their values");
	is_int(parse_loadavg(S("0.123456789012345678901234 0 0 1/1 1\n"), &la), 0,
	       "loadavg: more decimals than a double holds");
	ok(la.load1 > 0.1234567 && la.load1 < 0.1234568, "loadavg: ... rounded, not garbage");
	is_int(parse_loadavg(S("99999999999999999999.5 0 0 1/1 1\n"), &la), -EINVAL,
	       "loadavg: overflowing integer part");
	is_int(parse_loadavg(S("0.20 0.18 0.12 1/80 99999999999999999999\n"), &la), -EINVAL,
	       "loadavg: overflowing last pid");
	is_int(parse_loadavg(S("0.20 0.18 0.12 80 11206\n"), &la), -EINVAL, "loadavg: no '/'");
	is_int(parse_loadavg(S("-0.20 0.18 0.12 1/80 11206\n"), &la), -EINVAL, "loadavg: negative");
	is_int(parse_loadavg(S("0,20 0,18 0,12 1/80 11206\n"), &la), -EINVAL,
	       "loadavg: decimal comma (not locale-dependent)");
	is_int(parse_loadavg(S("0.20 0.18 0.12 1/80 11206"), &la), -EINVAL,
	       "loadavg: no newline, last pid may be cut");
	is_int(parse_loadavg(S("0. 0.18 0.12 1/80 11206\n"), &la), -EINVAL, "loadavg: '0.'");
	is_int(parse_loadavg("", 0, &la), -EINVAL, "loadavg: empty");
	is_int(parse_loadavg(NULL, 0, &la), -EINVAL, "loadavg: NULL, 0");
}

/* ---- /proc/pressure ---- */

static void test_pressure(void)
{
	size_t full = sizeof(psi_io_sample) - 1, t_some = line_end(psi_io_sample, "some"), len;
	struct psi psi;
	int bad = 0;

	is_int(parse_pressure(S(psi_io_sample), &psi), 0, "psi io: real sample");
	ok(psi.some.present && psi.full.present, "psi io: some and full present");
	ok(psi.some.avg10 == 0.00 && psi.some.avg300 == 0.21, "psi io: some averages");
	ok(psi.some.total_us == 3893864, "psi io: some total");
	ok(psi.full.avg300 == 0.20 && psi.full.total_us == 3776889, "psi io: full values");

	is_int(parse_pressure(S(psi_cpu_sample), &psi), 0, "psi cpu: real sample");
	ok(psi.some.avg10 == 0.53 && psi.some.avg60 == 0.21 && psi.some.avg300 == 0.23,
	   "psi cpu: some averages 0.53 0.21 0.23");
	ok(psi.some.total_us == 3798250, "psi cpu: some total");
	ok(psi.full.present && psi.full.total_us == 0, "psi cpu: full line of zeros is present");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(psi_io_sample, len);
		int rc = parse_pressure(b, len, &psi);

		if (rc != (len < t_some ? -EINVAL : 0) || psi.some.present != (len >= t_some) ||
		    psi.full.present != (len == full) ||
		    (psi.some.present && psi.some.total_us != 3893864) ||
		    (!psi.full.present && psi.full.total_us != 0))
			bad++;
		free(b);
	}
	is_int(bad, 0, "psi: every truncation gives exactly the complete lines");

	is_int(parse_pressure(S("some total=5 avg300=3.5 avg10=1.25 avg60=2.0\n"), &psi), 0,
	       "psi: tokens in any order");
	ok(psi.some.avg10 == 1.25 && psi.some.avg60 == 2.0 && psi.some.avg300 == 3.5 &&
	   psi.some.total_us == 5 && !psi.full.present, "psi: reordered values, no full line");
	is_int(parse_pressure(S("some avg10=1.00 avg60=2.00 avg300=3.00 total=4 new=7\n"), &psi), 0,
	       "psi: unknown token ignored");
	is_int(parse_pressure(S("full avg10=1.00 avg60=2.00 avg300=3.00 total=4\n"), &psi), 0,
	       "psi: full alone is enough");
	ok(!psi.some.present && psi.full.present, "psi: only full present");
	is_int(parse_pressure(S("some avg10=1.00 avg60=2.00 total=4\n"), &psi), -EINVAL,
	       "psi: a line missing avg300 is not a reading");
	is_int(parse_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 "
				"total=18446744073709551616\n"), &psi), -EINVAL,
	       "psi: overflowing total drops the line");
	is_int(parse_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
				"full avg10=x avg60=0.00 avg300=0.00 total=1\n"), &psi), 0,
	       "psi: a bad full line leaves some");
	ok(psi.some.present && !psi.full.present, "psi: ... and only some is present");
	is_int(parse_pressure(S("something avg10=1 avg60=1 avg300=1 total=1\n"), &psi), -EINVAL,
	       "psi: 'something' is not 'some'");
	is_int(parse_pressure("", 0, &psi), -EINVAL, "psi: empty");
	is_int(parse_pressure(NULL, 0, &psi), -EINVAL, "psi: NULL, 0");
}

/* ---- key/value files ---- */

/* Every cut reports a prefix of the full walk, one pair per complete line. */
static int kv_truncations(const char *sample, size_t full, const struct kv_list *all,
			  int pairs_are_lines)
{
	struct kv_list *l = kv_list_new();
	size_t len;
	int bad = 0;

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(sample, len);

		memset(l, 0, sizeof(*l));
		if (parse_kv(b, len, kv_collect, l) != 0 || !kv_is_prefix(l, all) ||
		    (pairs_are_lines && (size_t)l->n != count_lines(sample, len)))
			bad++;
		free(b);
	}
	free(l);
	return bad;
}

static void test_kv(void)
{
	struct kv_list *l = kv_list_new();
	uint64_t v;
	int rc;

	is_int(parse_kv(S(meminfo_sample), kv_collect, l), 0, "meminfo: real sample");
	is_int(l->n, 54, "meminfo: 54 keys");
	is_int(l->dropped, 0, "meminfo: nothing dropped");
	is_str(l->pair[0].key, "MemTotal", "meminfo: first key");
	is_str(kv_find(l, "MemTotal"), "24682416 kB", "meminfo: value trimmed");
	is_str(kv_find(l, "Active(anon)"), "1528 kB", "meminfo: key with parentheses");
	is_str(kv_find(l, "HugePages_Total"), "0", "meminfo: value without a unit");
	ok(!parse_kv_u64(kv_find(l, "VmallocTotal"), strlen(kv_find(l, "VmallocTotal")), 1, &v) &&
	   v == 34359738367ull * 1024, "meminfo: VmallocTotal in bytes");
	is_int(kv_truncations(meminfo_sample, sizeof(meminfo_sample) - 1, l, 1), 0,
	       "meminfo: every truncation gives the complete lines, never a cut value");

	memset(l, 0, sizeof(*l));
	is_int(parse_kv(S(vmstat_sample), kv_collect, l), 0, "vmstat: real sample");
	is_int(l->n, 192, "vmstat: 192 keys");
	is_str(kv_find(l, "nr_free_pages"), "813152", "vmstat: first counter");
	is_str(kv_find(l, "pgmajfault"), "705", "vmstat: pgmajfault");
	is_str(l->pair[191].key, "nr_unstable", "vmstat: last key");
	is_int(kv_truncations(vmstat_sample, sizeof(vmstat_sample) - 1, l, 1), 0,
	       "vmstat: every truncation gives the complete lines");

	memset(l, 0, sizeof(*l));
	l->stop_at = 3;
	is_int(parse_kv(S(meminfo_sample), kv_collect, l), 42, "kv: callback's return stops it");
	is_int(l->n, 3, "kv: no call after the stop");

	memset(l, 0, sizeof(*l));
	rc = parse_kv(S("\n\nA:\t1\n   \nNoValue:\nNoValue2:   \t\nB 2  \n:lonely\n"
			"  Indented:  x y  \nlast: 5"), kv_collect, l);
	is_int(rc, 0, "kv: odd lines");
	is_int(l->n, 3, "kv: blank, valueless, keyless and unterminated lines skipped");
	is_str(kv_find(l, "A"), "1", "kv: 'A:\\t1'");
	is_str(kv_find(l, "B"), "2", "kv: 'B 2' with trailing blanks");
	is_str(kv_find(l, "Indented"), "x y", "kv: inner blanks kept");
	ok(!kv_find(l, "last"), "kv: line without '\\n' not reported (may be cut)");
	is_int(parse_kv("", 0, kv_collect, l), 0, "kv: empty is 0");
	is_int(parse_kv(NULL, 0, kv_collect, l), 0, "kv: NULL, 0 is 0");
	free(l);
}

static void test_snmp(void)
{
	struct kv_list *all = kv_list_new(), *l = kv_list_new();
	size_t full, len, t_ip, t_icmp;
	int64_t sv;
	int bad = 0;

	is_int(parse_snmp(S(snmp_sample), kv_collect, all), 0, "snmp: real sample");
	is_int(all->n, 83, "snmp: 83 counters (sum of the groups)");
	is_int(all->dropped, 0, "snmp: nothing dropped");
	is_str(all->pair[0].key, "Ip.Forwarding", "snmp: first key");
	is_str(all->pair[0].val, "2", "snmp: Ip.Forwarding");
	is_str(kv_find(all, "Tcp.RetransSegs"), "0", "snmp: Tcp.RetransSegs");
	is_str(kv_find(all, "Tcp.InSegs"), "841", "snmp: Tcp.InSegs");
	is_str(kv_find(all, "Tcp.MaxConn"), "-1", "snmp: Tcp.MaxConn text");
	ok(!parse_kv_i64(S("-1"), &sv) && sv == -1, "snmp: Tcp.MaxConn is -1 as i64");
	is_str(kv_find(all, "IcmpMsg.InType3"), "1", "snmp: one-column group");
	is_str(kv_find(all, "UdpLite.MemErrors"), "0", "snmp: last key");

	full = sizeof(snmp_sample) - 1;
	t_ip = line_end(snmp_sample, "Ip: 2");
	t_icmp = line_end(snmp_sample, "Icmp: 1");
	for (len = 0; len <= full; len++) {
		char *b = dup_exact(snmp_sample, len);

		memset(l, 0, sizeof(*l));
		if (parse_snmp(b, len, kv_collect, l) != 0 || !kv_is_prefix(l, all) ||
		    (len < t_ip && l->n != 0) || (len >= t_ip && len < t_icmp && l->n != 20) ||
		    (len == full && l->n != 83))
			bad++;
		free(b);
	}
	is_int(bad, 0, "snmp: every truncation reports whole groups, as a prefix");

	memset(all, 0, sizeof(*all));
	is_int(parse_snmp(S(netstat_sample), kv_collect, all), 0, "netstat: real sample");
	is_int(all->n, 229, "netstat: 229 counters");
	is_str(kv_find(all, "TcpExt.TCPTimeouts"), "2", "netstat: TcpExt.TCPTimeouts");
	is_str(kv_find(all, "TcpExt.TCPOrigDataSent"), "45", "netstat: TcpExt.TCPOrigDataSent");
	is_str(kv_find(all, "IpExt.InOctets"), "20708281", "netstat: IpExt.InOctets");
	is_str(all->pair[all->n - 1].key, "MPTcpExt.WinProbe", "netstat: last key");
	memset(l, 0, sizeof(*l));
	bad = 0;
	full = sizeof(netstat_sample) - 1;
	for (len = 0; len <= full; len += 7) {
		char *b = dup_exact(netstat_sample, len);

		memset(l, 0, sizeof(*l));
		if (parse_snmp(b, len, kv_collect, l) != 0 || !kv_is_prefix(l, all))
			bad++;
		free(b);
	}
	is_int(bad, 0, "netstat: truncations every 7 bytes report a prefix");

	memset(l, 0, sizeof(*l));
	is_int(parse_snmp(S("Tcp: A B C D E\nTcp: 1 2 3\nUdp: X Y\nUdp: 7 8 9 10\n"), kv_collect,
			  l), 0, "snmp mismatched counts: parses");
	is_int(l->n, 5, "snmp mismatched counts: common prefix of each group");
	is_str(kv_find(l, "Tcp.C"), "3", "snmp mismatched: Tcp.C");
	ok(!kv_find(l, "Tcp.D"), "snmp mismatched: Tcp.D has no value");
	is_str(kv_find(l, "Udp.Y"), "8", "snmp mismatched: Udp.Y");

	memset(l, 0, sizeof(*l));
	is_int(parse_snmp(S("Ip: 2 64\nTcp: A B\nUdp: 1 2\nUdp: X Y\nUdp: 3 4\nno colon\nTcp: Q\n"
			    "Tcp: 5\nTcp: R\n"), kv_collect, l),
	       0, "snmp desynchronised: parses");
	is_int(l->n, 3, "snmp desynchronised: resyncs on the next header");
	ok(!kv_find(l, "Udp.1") && !kv_find(l, "Ip.2"), "snmp desynchronised: values never names");
	is_str(kv_find(l, "Udp.Y"), "4", "snmp desynchronised: Udp.Y");
	is_str(kv_find(l, "Tcp.Q"), "5", "snmp desynchronised: Tcp.Q after a colonless line");

	memset(l, 0, sizeof(*l));
	{
		char name[301], buf[700];
		int n;

		memset(name, 'N', 300);
		name[300] = '\0';
		n = sprintf(buf, "Tcp: %s Short\nTcp: 1 2\n", name);

		is_int(parse_snmp(buf, n, kv_collect, l), 0, "snmp: 300-byte name");
		is_int(l->n, 1, "snmp: over-long name skipped, the next one kept");
		is_str(kv_find(l, "Tcp.Short"), "2", "snmp: value stays paired with its name");
	}
	memset(l, 0, sizeof(*l));
	is_int(parse_snmp(S("Foo: A B\nFoo: -1 2\n"), kv_collect, l), 0, "snmp: values led by -1");
	is_str(kv_find(l, "Foo.A"), "-1", "snmp: ... is values, not names");

	memset(l, 0, sizeof(*l));
	l->stop_at = 2;
	is_int(parse_snmp(S(snmp_sample), kv_collect, l), 42, "snmp: callback stop returned");
	is_int(l->n, 2, "snmp: no call after the stop");
	is_int(parse_snmp("", 0, kv_collect, l), 0, "snmp: empty");
	is_int(parse_snmp(NULL, 0, kv_collect, l), 0, "snmp: NULL, 0");
	free(all);
	free(l);
}

/* ---- /proc/diskstats ---- */

static int disk_equal(const struct diskstat *a, const struct diskstat *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void test_diskstats(void)
{
	struct disk_list *all = calloc(1, sizeof(*all)), *l = calloc(1, sizeof(*l));
	size_t full = sizeof(diskstats_sample) - 1, len;
	const struct diskstat *d;
	int bad = 0, i;

	if (!all || !l)
		abort();
	is_int(parse_diskstats(S(diskstats_sample), disk_collect, all), 0, "diskstats: sample");
	is_int(all->n, 10, "diskstats: ten devices");
	d = &all->d[8];
	is_str(d->name, "vda", "diskstats: vda");
	ok(d->major == 254 && d->minor == 0, "diskstats: vda is 254:0");
	is_int(d->nfields, 17, "diskstats: 20-field line has 17 numbers");
	ok(d->rd_ios == 27224 && d->rd_merges == 5098 && d->rd_sectors == 1897690 &&
	   d->rd_ticks == 7297, "diskstats: vda reads");
	ok(d->wr_ios == 4496 && d->wr_merges == 5772 && d->wr_sectors == 436960 &&
	   d->wr_ticks == 2405, "diskstats: vda writes");
	ok(d->in_flight == 0 && d->io_ticks == 5364 && d->time_in_queue == 10161,
	   "diskstats: vda queue");
	ok(d->dc_ios == 4248 && d->dc_merges == 16 && d->dc_sectors == 132080 && d->dc_ticks == 422,
	   "diskstats: vda discards");
	ok(d->fl_ios == 652 && d->fl_ticks == 36, "diskstats: vda flushes");
	is_str(all->d[0].name, "loop0", "diskstats: loop0 first");
	is_str(all->d[9].name, "zram0", "diskstats: zram0 last");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(diskstats_sample, len);

		memset(l, 0, sizeof(*l));
		if (parse_diskstats(b, len, disk_collect, l) != 0 ||
		    (size_t)l->n != count_lines(diskstats_sample, len))
			bad++;
		for (i = 0; i < l->n; i++)
			bad += !disk_equal(&l->d[i], &all->d[i]);
		free(b);
	}
	is_int(bad, 0, "diskstats: every truncation gives the complete lines, unchanged");

	memset(l, 0, sizeof(*l));
	is_int(parse_diskstats(S(diskstats_old), disk_collect, l), 0, "diskstats old: parses");
	is_int(l->n, 3, "diskstats old: three lines");
	is_int(l->d[0].nfields, 11, "diskstats old: 14-field line has 11 numbers");
	ok(l->d[0].rd_ios == 104 && l->d[0].time_in_queue == 164 && l->d[0].dc_ios == 0 &&
	   l->d[0].fl_ios == 0, "diskstats old: sda values, no discard or flush");
	is_int(l->d[1].nfields, 15, "diskstats old: 18-field line has 15 numbers");
	ok(l->d[1].dc_ios == 7 && l->d[1].dc_ticks == 3 && l->d[1].fl_ios == 0,
	   "diskstats old: sda1 discards, no flush");
	is_str(l->d[2].name, "nvme0n1", "diskstats old: nvme0n1");
	ok(l->d[2].major == 259 && l->d[2].wr_sectors == 42342810 && l->d[2].fl_ticks == 16,
	   "diskstats old: nvme0n1 20-field values");

	memset(l, 0, sizeof(*l));
	/*
	 * Skipped: a 2.6 partition line (4 numbers), 10 numbers, an overflow,
	 * a negative, junk in the 12th number, a 33-bit major, no name, a
	 * non-numeric major, and a last line without its '\n'.
	 */
	is_int(parse_diskstats(S("   8    1 sda1 50 4000 1 8\n"
				 "   8    2 sda2 1 2 3 4 5 6 7 8 9 10\n"
				 "   8    3 sda3 1 2 3 4 5 6 7 8 9 10 18446744073709551616\n"
				 "   8    4 sda4 1 2 3 4 5 6 7 8 9 10 -1\n"
				 "   8    9 sda9 1 2 3 4 5 6 7 8 9 10 11 12x\n"
				 "4294967296 0 big 1 2 3 4 5 6 7 8 9 10 11\n"
				 "   8    5 sda5 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n"
				 "   8    6\n"
				 "x y z 1 2 3 4 5 6 7 8 9 10 11\n"
				 "   8    7 sda7 18446744073709551615 2 3 4 5 6 7 8 9 10 11\n"
				 "   8    8 sda8 1 2 3 4 5 6 7 8 9 10 11"), disk_collect, l),
	       0, "diskstats hostile: parses");
	is_int(l->n, 2, "diskstats hostile: short, overflowing, junk and cut lines skipped");
	is_str(l->d[0].name, "sda5", "diskstats hostile: 18 numbers kept");
	is_int(l->d[0].nfields, 18, "diskstats hostile: nfields counts the extra one");
	is_int(l->d[0].fl_ticks, 17, "diskstats hostile: 17th number is flush ticks");
	ok(l->d[1].rd_ios == UINT64_MAX, "diskstats hostile: UINT64_MAX itself is fine");
	{
		char buf[200];
		int n = sprintf(buf, "8 0 %070d 1 2 3 4 5 6 7 8 9 10 11\n"
				"8 1 ok 1 2 3 4 5 6 7 8 9 10 11\n", 1);

		memset(l, 0, sizeof(*l));
		is_int(parse_diskstats(buf, n, disk_collect, l), 0, "diskstats: 70-byte name");
		ok(l->n == 1 && !strcmp(l->d[0].name, "ok"), "diskstats: over-long name skipped");
	}
	memset(l, 0, sizeof(*l));
	l->stop_at = 4;
	is_int(parse_diskstats(S(diskstats_sample), disk_collect, l), 7,
	       "diskstats: callback stop returned");
	is_int(l->n, 4, "diskstats: no call after the stop");
	memset(l, 0, sizeof(*l));
	is_int(parse_diskstats("", 0, disk_collect, l), 0, "diskstats: empty");
	is_int(parse_diskstats(NULL, 0, disk_collect, l), 0, "diskstats: NULL, 0");
	is_int(l->n, 0, "diskstats: empty gives no device");
	free(all);
	free(l);
}

/* ---- /proc/net/dev ---- */

static void test_net_dev(void)
{
	struct netdev_list all = { 0 }, l;
	size_t full = sizeof(netdev_sample) - 1, len;
	const struct netdev *e;
	int bad = 0, i;

	is_int(parse_net_dev(S(netdev_sample), netdev_collect, &all), 0, "net/dev: real sample");
	is_int(all.n, 4, "net/dev: four interfaces, headers skipped");
	is_str(all.d[0].name, "lo", "net/dev: lo");
	e = &all.d[3];
	is_str(e->name, "eth0", "net/dev: eth0");
	ok(e->rx_bytes == 20717186 && e->rx_packets == 844 && e->rx_multicast == 0,
	   "net/dev: eth0 receive");
	ok(e->tx_bytes == 50912 && e->tx_packets == 674 && e->tx_compressed == 0,
	   "net/dev: eth0 transmit");
	ok(all.d[0].rx_bytes == 3319 && all.d[0].tx_packets == 30, "net/dev: lo counters");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(netdev_sample, len);
		size_t lines = count_lines(netdev_sample, len);

		memset(&l, 0, sizeof(l));
		if (parse_net_dev(b, len, netdev_collect, &l) != 0 ||
		    l.n != (lines > 2 ? (int)lines - 2 : 0))
			bad++;
		for (i = 0; i < l.n && i < 4; i++)
			bad += !!memcmp(&l.d[i], &all.d[i], sizeof(l.d[i]));
		free(b);
	}
	is_int(bad, 0, "net/dev: every truncation gives the complete lines, unchanged");

	memset(&l, 0, sizeof(l));
	is_int(parse_net_dev(S("  eth1:4294967296 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"
			       "  eth2: 1 2 3\n"
			       " bad name: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
			       "  eth3: 1 2 3 4 5 6 7 8 99999999999999999999 10 11 12 13 14 15 16\n"
			       "    : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
			       "  eth4: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"),
			     netdev_collect, &l), 0, "net/dev hostile: parses");
	is_int(l.n, 1, "net/dev hostile: only the well-formed line");
	is_str(l.d[0].name, "eth1", "net/dev: no blank after the colon (old kernels)");
	ok(l.d[0].rx_bytes == 4294967296ull && l.d[0].tx_compressed == 15,
	   "net/dev: ... values");
	memset(&l, 0, sizeof(l));
	is_int(parse_net_dev("", 0, netdev_collect, &l), 0, "net/dev: empty");
	is_int(parse_net_dev(NULL, 0, netdev_collect, &l), 0, "net/dev: NULL, 0");
	is_int(l.n, 0, "net/dev: empty gives no interface");
}

/* ---- /proc/sys/fs/file-nr ---- */

static void test_file_nr(void)
{
	size_t full = sizeof(file_nr_sample) - 1, len;
	struct file_nr fn;
	int bad = 0;

	is_int(parse_file_nr(S(file_nr_sample), &fn), 0, "file-nr: real sample");
	ok(fn.allocated == 465 && fn.unused == 0 && fn.max == 2465610, "file-nr: 465 0 2465610");
	for (len = 0; len < full; len++) {
		char *b = dup_exact(file_nr_sample, len);

		if (parse_file_nr(b, len, &fn) != -EINVAL || fn.max != 0)
			bad++;
		free(b);
	}
	is_int(bad, 0, "file-nr: every truncation is -EINVAL");
	is_int(parse_file_nr(S("1 2 9223372036854775807\n"), &fn), 0, "file-nr: LONG_MAX max");
	ok(fn.max == INT64_MAX, "file-nr: ... value");
	is_int(parse_file_nr(S("1\t2\t18446744073709551616\n"), &fn), -EINVAL, "file-nr: overflow");
	is_int(parse_file_nr(S("1 2\n"), &fn), -EINVAL, "file-nr: two fields");
	is_int(parse_file_nr(S("1 2 3x\n"), &fn), -EINVAL, "file-nr: junk in a number");
	is_int(parse_file_nr("", 0, &fn), -EINVAL, "file-nr: empty");
	is_int(parse_file_nr(NULL, 0, &fn), -EINVAL, "file-nr: NULL, 0");
}

/* ---- /proc/PID/stat ---- */

/*
 * Everything after the comm, with a distinct value in each field the parser
 * keeps: 50 fields as a 6.18 kernel prints them.
 */
static const char stat_rest[] =
	" S 42 43 44 0 -1 4194560 108 109 110 111 112 113 114 115 20 -5 118 0 120 121 122 "
	"18446744073709551615 124 125 126 127 128 129 130 131 132 133 134 135 136 137 0 0 140 0 0 "
	"143 144 145 146 147 148 149 150\n";

static size_t build_stat(char *dst, const char *name, size_t nlen)
{
	size_t n = 0;

	memcpy(dst, "4321 (", 6);
	n += 6;
	memcpy(dst + n, name, nlen);
	n += nlen;
	dst[n++] = ')';
	memcpy(dst + n, stat_rest, sizeof(stat_rest) - 1);
	return n + sizeof(stat_rest) - 1;
}

/* Number of fields after the last ')' of s that a blank or '\n' before len closes. */
static int stat_fields_complete(const char *s, size_t close, size_t len)
{
	size_t i;
	int n = 0;

	for (i = close + 1; i < len; i++) {
		if ((s[i] == ' ' || s[i] == '\n') && s[i - 1] != ' ' && s[i - 1] != ')')
			n++;
		if (s[i] == '\n')
			break;
	}
	return n;
}

static void test_pid_stat_sample(void)
{
	size_t full = sizeof(pid_stat_sample) - 1, close, len;
	struct pid_stat ps, all;
	int bad = 0;

	is_int(parse_pid_stat(S(pid_stat_sample), &all), 0, "pid stat: real sample");
	is_int(all.pid, 1, "pid stat: pid");
	is_str(all.comm, "process_api", "pid stat: comm");
	is_int(all.state, 'S', "pid stat: state");
	is_int(all.ppid, 0, "pid stat: ppid");
	is_int(all.minflt, 43709, "pid stat: minflt");
	is_int(all.majflt, 69, "pid stat: majflt");
	is_int(all.utime, 64, "pid stat: utime");
	is_int(all.stime, 167, "pid stat: stime");
	is_int(all.nice, 0, "pid stat: nice");
	is_int(all.num_threads, 12, "pid stat: threads");
	is_int(all.starttime, 10, "pid stat: starttime");
	is_int(all.vsize, 43429888, "pid stat: vsize");
	is_int(all.rss_pages, 3724, "pid stat: rss");
	is_int(all.processor, 0, "pid stat: processor");
	is_int(all.blkio_ticks, 0, "pid stat: blkio ticks");
	is_int(all.nfields, 50, "pid stat: 50 fields after the comm");

	close = strrchr(pid_stat_sample, ')') - pid_stat_sample;
	for (len = 0; len <= full; len++) {
		char *b = dup_exact(pid_stat_sample, len);
		int rc = parse_pid_stat(b, len, &ps);
		int want = len > close ? stat_fields_complete(pid_stat_sample, close, len) : -1;

		if (want < 0) {
			bad += rc != -EINVAL;
		} else if (rc != 0 || ps.nfields != want || strcmp(ps.comm, "process_api") ||
			   ps.pid != 1 || (want >= 1 && ps.state != 'S') ||
			   ps.rss_pages != (want >= 22 ? all.rss_pages : 0) ||
			   ps.minflt != (want >= 8 ? all.minflt : 0) ||
			   ps.vsize != (want >= 21 ? all.vsize : 0)) {
			if (!bad)
				printf("# pid stat cut at %zu: rc %d nfields %d want %d\n", len, rc,
				       ps.nfields, want);
			bad++;
		}
		free(b);
	}
	is_int(bad, 0, "pid stat: every truncation keeps exactly the closed fields");
	/* "... 3724 1844" is not a vsize of 1844: the cut field is left out. */
	is_int(parse_pid_stat(pid_stat_sample, strstr(pid_stat_sample, "43429888") -
			      pid_stat_sample + 4, &ps), 0, "pid stat: cut inside vsize");
	ok(ps.nfields == 20 && ps.vsize == 0 && ps.starttime == 10, "pid stat: ... vsize left out");
}

static void test_pid_stat_hostile(void)
{
	static const char long_name[] =
		"0123456789012345678901234567890123456789012345678901234567890123456789";
	/* The first 63 bytes of long_name. */
	static const char comm63[] =
		"012345678901234567890123456789012345678901234567890123456789012";
	static const struct {
		const char *name;
		size_t len;
		const char *want;
	} names[] = {
		{ S("a) S 1 (b"), "a) S 1 (b" },
		{ S("my prog name"), "my prog name" },
		{ S(" lead and trail "), " lead and trail " },
		{ S("a\nb"), "a\nb" },
		{ S("<img src=x onerror=alert(1)>"), "<img src=x onerror=alert(1)>" },
		{ S("[x](javascript:alert(1))"), "[x](javascript:alert(1))" },
		{ S("a|b"), "a|b" },
		/* Invalid UTF-8: a stray byte, a bad continuation, an overlong '/', a surrogate. */
		{ S("\xff\xfe\xc3\x28\xc0\xaf\xed\xa0\x80"),
		  "\xff\xfe\xc3\x28\xc0\xaf\xed\xa0\x80" },
		{ S(")"), ")" },
		{ S("(("), "((" },
		{ S(") 0 0 ("), ") 0 0 (" },
		{ S(""), "" },
		/* 63 bytes fit; 64 and more are cut to 63 and still NUL-terminated. */
		{ long_name, 63, comm63 },
		{ long_name, 64, comm63 },
		{ S(long_name), comm63 },
	};
	char buf[512];
	struct pid_stat ps;
	size_t i, n, len, close;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *b;
		int rc, bad = 0;

		n = build_stat(buf, names[i].name, names[i].len);
		b = dup_exact(buf, n);
		rc = parse_pid_stat(b, n, &ps);
		free(b);
		is_int(rc, 0, "pid stat name #%zu: parses", i);
		is_str(ps.comm, names[i].want, "pid stat name #%zu: comm byte for byte", i);
		ok(ps.pid == 4321 && ps.state == 'S' && ps.ppid == 42 && ps.nfields == 50,
		   "pid stat name #%zu: pid, state, ppid, nfields", i);
		ok(ps.minflt == 108 && ps.majflt == 110 && ps.utime == 112 && ps.stime == 113 &&
		   ps.nice == -5 && ps.num_threads == 118 && ps.starttime == 120 &&
		   ps.vsize == 121 && ps.rss_pages == 122 && ps.processor == 137 &&
		   ps.blkio_ticks == 140, "pid stat name #%zu: every kept field in place", i);

		/*
		 * Cut inside the comm, the last ')' present may be one of the name's:
		 * such a parse must either fail or stop within the two fields that
		 * "a) S 1 (b" can fake. Once the real ')' is in, the comm is exact.
		 */
		close = 6 + names[i].len;
		for (len = 0; len <= n; len++) {
			b = dup_exact(buf, len);
			rc = parse_pid_stat(b, len, &ps);
			if (len > close && (rc || strcmp(ps.comm, names[i].want)))
				bad++;
			if (!rc && strcmp(ps.comm, names[i].want) && ps.nfields > 2)
				bad++;
			free(b);
		}
		is_int(bad, 0, "pid stat name #%zu: every truncation safe", i);
	}

	/* Embedded NUL: kept as a byte (the C string then ends early). */
	n = build_stat(buf, "a\0b", 3);
	is_int(parse_pid_stat(buf, n, &ps), 0, "pid stat: NUL in the comm");
	ok(!memcmp(ps.comm, "a\0b\0", 4) && ps.ppid == 42, "pid stat: ... bytes after it kept");

	/*
	 * A name that itself looks like fields, cut before its real ')', cannot
	 * be told from a short line; only nfields (3, not 50) gives it away.
	 */
	n = build_stat(buf, "x) R 7 8 9", 10);
	is_int(parse_pid_stat(buf, strlen("4321 (x) R 7 8 9"), &ps), 0,
	       "pid stat: cut inside a field-like comm");
	ok(!strcmp(ps.comm, "x") && ps.nfields == 3 && ps.ppid == 7,
	   "pid stat: ... looks like a short line (nfields 3)");

	is_int(parse_pid_stat(S("4321 (no close S 1 2 3\n"), &ps), -EINVAL, "pid stat: no ')'");
	is_int(parse_pid_stat(S("4321 no open) S 1 2 3\n"), &ps), -EINVAL, "pid stat: no '('");
	is_int(parse_pid_stat(S("4321 )x( S 1 2 3\n"), &ps), -EINVAL, "pid stat: ')' before '('");
	is_int(parse_pid_stat(S("43a1 (x) S 1 2 3\n"), &ps), -EINVAL, "pid stat: junk pid");
	is_int(parse_pid_stat(S("4294967296 (x) S 1 2 3\n"), &ps), -EINVAL, "pid stat: huge pid");
	is_int(parse_pid_stat(S("(x) S 1 2 3\n"), &ps), -EINVAL, "pid stat: no pid");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 18446744073709551616 1\n"), &ps), -EINVAL,
	       "pid stat: overflowing minflt");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 123456789012345678901234567890\n"), &ps),
	       -EINVAL, "pid stat: overflowing field cut at the end");
	is_int(parse_pid_stat(S("1 (x) S 2147483648 2\n"), &ps), -EINVAL, "pid stat: huge ppid");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 -7 8\n"), &ps), -EINVAL,
	       "pid stat: negative minflt");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 "
				"-9223372036854775808 1\n"), &ps),
	       0, "pid stat: nice at INT64_MIN");
	ok(ps.nice == INT64_MIN && ps.nfields == 18, "pid stat: ... value");
	is_int(parse_pid_stat(S("1 (x) S 1 2 three 4\n"), &ps), -EINVAL, "pid stat: word field");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3x 4\n"), &ps), -EINVAL, "pid stat: '3x'");
	is_int(parse_pid_stat(S("1 (x) Sl 1 2\n"), &ps), -EINVAL, "pid stat: two-letter state");
	is_int(parse_pid_stat(S("1 (x)\n"), &ps), 0, "pid stat: nothing after the comm");
	ok(ps.nfields == 0 && ps.state == 0 && !strcmp(ps.comm, "x"), "pid stat: ... nfields 0");
	is_int(parse_pid_stat(S("1 (x) S 1 -"), &ps), 0, "pid stat: cut after a minus sign");
	is_int(ps.nfields, 2, "pid stat: ... the '-' is not a field");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 "
				"22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41\n"),
			      &ps), 0, "pid stat: 2.6.24-era 44-field line");
	ok(ps.nfields == 42 && ps.processor == 36 && ps.blkio_ticks == 39,
	   "pid stat: ... processor and blkio ticks");
	is_int(parse_pid_stat(S("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 "
				"22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37\n"), &ps), 0,
	       "pid stat: line without delayacct");
	ok(ps.nfields == 38 && ps.blkio_ticks == 0, "pid stat: ... blkio ticks 0");
	is_int(parse_pid_stat("", 0, &ps), -EINVAL, "pid stat: empty");
	is_int(parse_pid_stat(NULL, 0, &ps), -EINVAL, "pid stat: NULL, 0");
}

/* ---- /proc/PID/status ---- */

static void test_pid_status(void)
{
	static const struct {
		const char *line;
		const char *want;
	} names[] = {
		{ "Name:\ta) S 1 (b\n", "a) S 1 (b" },
		{ "Name:\tmy prog \n", "my prog " },             /* blanks belong to the name */
		{ "Name:\ta\\nb\n", "a\\nb" },                    /* the kernel escapes '\n' */
		{ "Name:\t<img src=x onerror=alert(1)>\n", "<img src=x onerror=alert(1)>" },
		{ "Name:\t[x](javascript:alert(1))\n", "[x](javascript:alert(1))" },
		{ "Name:\ta|b\n", "a|b" },
		{ "Name:\t\xff\xfe\xc3\x28\n", "\xff\xfe\xc3\x28" },
		{ "Name:\t \n", " " },
		{ "Name:\t0123456789012345678901234567890123456789012345678901234567890123\n",
		  "012345678901234567890123456789012345678901234567890123456789012" },
		{ "Name:\n", "" },
		{ "Name:\tkworker/u8:0-ext4-rsv-conversion-and-then-some-more-text-to-pass-63\n",
		  "kworker/u8:0-ext4-rsv-conversion-and-then-some-more-text-to-pas" },
	};
	size_t full = sizeof(pid_status_sample) - 1, len, i;
	size_t t_name = line_end(pid_status_sample, "Name:");
	size_t t_uid = line_end(pid_status_sample, "Uid:");
	size_t t_rss = line_end(pid_status_sample, "VmRSS:");
	size_t t_vol = line_end(pid_status_sample, "\nvoluntary_ctxt");
	size_t t_nonvol = line_end(pid_status_sample, "nonvoluntary_ctxt");
	struct pid_status st;
	int bad = 0;

	is_int(parse_pid_status(S(pid_status_sample), &st), 0, "status: real sample");
	is_str(st.name, "process_api", "status: name");
	is_int(st.state, 'S', "status: state");
	is_int(st.ppid, 0, "status: ppid");
	is_int(st.uid, 0, "status: real uid");
	is_int(st.threads, 12, "status: threads");
	is_int(st.vm_rss_kb, 14908, "status: VmRSS kB");
	ok(st.vol_ctxt == 332 && st.nonvol_ctxt == 25 && st.has_ctxt, "status: context switches");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(pid_status_sample, len);
		int rc = parse_pid_status(b, len, &st);

		if (rc != (len < t_name ? -EINVAL : 0) ||
		    strcmp(st.name, len >= t_name ? "process_api" : "") ||
		    st.uid != (len >= t_uid ? 0 : -1) ||
		    st.vm_rss_kb != (len >= t_rss ? 14908 : 0) ||
		    st.vol_ctxt != (len >= t_vol ? 332 : 0) || st.has_ctxt != (len >= t_nonvol))
			bad++;
		free(b);
	}
	is_int(bad, 0, "status: every truncation gives the complete lines");

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char buf[256];
		int n = snprintf(buf, sizeof(buf), "%sState:\tR (running)\nPPid:\t7\n",
				 names[i].line);

		is_int(parse_pid_status(buf, n, &st), 0, "status name #%zu: parses", i);
		is_str(st.name, names[i].want, "status name #%zu: byte for byte", i);
		ok(st.state == 'R' && st.ppid == 7, "status name #%zu: following fields", i);
	}

	/* A kernel thread: no VmRSS; a process without its ctxt lines; odd values. */
	is_int(parse_pid_status(S("Name:\tkthreadd\nState:\tS (sleeping)\nPPid:\t0\n"
				  "Uid:\t4294967296\t0\t0\t0\nThreads:\t1\n"
				  "voluntary_ctxt_switches:\t5\n"), &st),
	       0, "status: sparse fields");
	ok(st.vm_rss_kb == 0 && st.uid == -1 && st.vol_ctxt == 5 && !st.has_ctxt,
	   "status: missing VmRSS 0, bad uid -1, one ctxt line is not has_ctxt");
	is_int(parse_pid_status(S("Uid:\t1000\t1001\t1002\t1003\nPPid:\t99999999999\n"), &st), 0,
	       "status: uid only");
	ok(st.uid == 1000 && st.ppid == 0 && st.name[0] == 0, "status: first uid is the real one");
	is_int(parse_pid_status(S("Foo:\t1\nBar:\t2\n"), &st), -EINVAL, "status: no known field");
	is_int(st.uid, -1, "status: uid -1 when absent");
	is_int(parse_pid_status("", 0, &st), -EINVAL, "status: empty");
	is_int(parse_pid_status(NULL, 0, &st), -EINVAL, "status: NULL, 0");
}

/* ---- /proc/PID/io ---- */

static void test_pid_io(void)
{
	size_t full = sizeof(pid_io_sample) - 1, len;
	struct pid_io io, all;
	int bad = 0;

	is_int(parse_pid_io(S(pid_io_sample), &all), 0, "io: real sample");
	ok(all.rchar == 1785941 && all.wchar == 101691 && all.syscr == 672 && all.syscw == 30,
	   "io: chars and syscalls");
	ok(all.read_bytes == 0 && all.write_bytes == 102400 && all.cancelled_write_bytes == 0,
	   "io: storage bytes");
	is_int(all.present, 1, "io: present");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(pid_io_sample, len);
		size_t lines = count_lines(pid_io_sample, len);
		int rc = parse_pid_io(b, len, &io);

		if (rc != (lines ? 0 : -EINVAL) || io.present != (len == full) ||
		    io.rchar != (lines >= 1 ? all.rchar : 0) ||
		    io.write_bytes != (lines >= 6 ? all.write_bytes : 0))
			bad++;
		free(b);
	}
	is_int(bad, 0, "io: every truncation: complete lines only, present only when whole");

	is_int(parse_pid_io(S("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\n"
			      "write_bytes: 18446744073709551616\n"
			      "cancelled_write_bytes: 7\n"), &io),
	       0, "io: overflowing write_bytes");
	ok(io.write_bytes == 0 && !io.present && io.cancelled_write_bytes == 7,
	   "io: ... that field missing, not present");
	is_int(parse_pid_io(S("foo: 1\n"), &io), -EINVAL, "io: no known key");
	is_int(parse_pid_io("", 0, &io), -EINVAL, "io: empty");
	is_int(parse_pid_io(NULL, 0, &io), -EINVAL, "io: NULL, 0");
	is_int(io.present, 0, "io: empty is not present");
}

/* ---- /proc/PID/limits ---- */

static void test_pid_limits(void)
{
	size_t full = sizeof(limits_sample) - 1, t = line_end(limits_sample, "Max open files"), len;
	uint64_t soft, hard;
	int bad = 0;

	is_int(parse_pid_limits_nofile(S(limits_sample), &soft, &hard), 0, "limits: real sample");
	ok(soft == 20000 && hard == 20000, "limits: 20000 20000");

	for (len = 0; len <= full; len++) {
		char *b = dup_exact(limits_sample, len);
		int rc;

		soft = hard = 1;
		rc = parse_pid_limits_nofile(b, len, &soft, &hard);
		if (len < t)
			bad += rc != -EINVAL || soft != 1 || hard != 1;
		else
			bad += rc != 0 || soft != 20000 || hard != 20000;
		free(b);
	}
	is_int(bad, 0, "limits: -EINVAL until the line is complete, then exact");

	is_int(parse_pid_limits_nofile(S("Limit                     Soft Limit           Hard Limit"
					 "           Units     \n"
					 "Max open files            1024                 unlimited"
					 "            files     \n"), &soft, &hard),
	       0, "limits: unlimited hard");
	ok(soft == 1024 && hard == UINT64_MAX, "limits: unlimited is UINT64_MAX");
	is_int(parse_pid_limits_nofile(S("Max open files unlimited unlimited files\n"), &soft,
				       &hard), 0, "limits: both unlimited");
	ok(soft == UINT64_MAX && hard == UINT64_MAX, "limits: ... values");
	is_int(parse_pid_limits_nofile(S("Max open files 18446744073709551616 1 files\n"), &soft,
				       &hard), -EINVAL, "limits: overflow");
	is_int(parse_pid_limits_nofile(S("Max open files 1024 unlimitedX files\n"), &soft, &hard),
	       -EINVAL, "limits: 'unlimitedX'");
	is_int(parse_pid_limits_nofile(S("Max open files 1024\n"), &soft, &hard), -EINVAL,
	       "limits: hard missing");
	is_int(parse_pid_limits_nofile(S("Max open filesystems 1 2 x\n"), &soft, &hard), -EINVAL,
	       "limits: 'Max open filesystems' is another line");
	is_int(parse_pid_limits_nofile(S("Max open files"), &soft, &hard), -EINVAL,
	       "limits: label alone");
	is_int(parse_pid_limits_nofile("", 0, &soft, &hard), -EINVAL, "limits: empty");
	is_int(parse_pid_limits_nofile(NULL, 0, &soft, &hard), -EINVAL, "limits: NULL, 0");
}

/* ---- /proc/interrupts ---- */

struct irq_rec {
	char name[16];
	char desc[96];
	uint64_t total;
};

struct irq_list {
	int n;
	int stop_at; /* return 7 from this call on (1-based), 0: never */
	int bad;     /* name or desc that does not fit the record, or a malformed one */
	struct irq_rec r[64];
};

static int irq_collect(const char *name, size_t nlen, const char *desc, size_t dlen,
		       uint64_t total, void *arg)
{
	struct irq_list *l = arg;
	struct irq_rec *r;

	if (l->n >= (int)ARRAY_SIZE(l->r) || nlen >= sizeof(r->name) || dlen >= sizeof(r->desc)) {
		l->bad++;
		return 0;
	}
	r = &l->r[l->n++];
	memcpy(r->name, name, nlen);
	r->name[nlen] = '\0';
	memcpy(r->desc, desc, dlen);
	r->desc[dlen] = '\0';
	r->total = total;
	if (l->stop_at && l->n >= l->stop_at)
		return 7;
	return 0;
}

static const struct irq_rec *irq_find(const struct irq_list *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->r[i].name, name))
			return &l->r[i];
	return NULL;
}

static int irq_equal(const struct irq_rec *a, const struct irq_rec *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->desc, b->desc) && a->total == b->total;
}

/*
 * Every cut of the sample: -EINVAL without a call until the header's '\n' is
 * there, then exactly the complete lines, each as in the whole file.
 */
static int irq_truncations(const char *sample, size_t full, const struct irq_list *all)
{
	struct irq_list *l = calloc(1, sizeof(*l));
	size_t hdr = strchr(sample, '\n') - sample + 1, len;
	int bad = 0, i;

	if (!l)
		abort();
	for (len = 0; len <= full; len++) {
		char *b = dup_exact(sample, len);
		int ret;

		memset(l, 0, sizeof(*l));
		ret = parse_interrupts(b, len, irq_collect, l);
		if (len < hdr) {
			bad += ret != -EINVAL || l->n != 0;
		} else {
			bad += ret != 0 || l->bad || (size_t)l->n != count_lines(sample, len) - 1;
			for (i = 0; i < l->n; i++)
				bad += !irq_equal(&l->r[i], &all->r[i]);
		}
		free(b);
	}
	free(l);
	return bad;
}

static void test_interrupts(void)
{
	struct irq_list *all = calloc(1, sizeof(*all)), *l = calloc(1, sizeof(*l));
	const struct irq_rec *r;
	char buf[512];
	int n;

	if (!all || !l)
		abort();

	/* This VM's file. */
	is_int(parse_interrupts(S(irq_sample), irq_collect, all), 0, "irq: VM sample");
	is_int(all->n, (int)count_lines(S(irq_sample)) - 1, "irq: VM every line after the header");
	is_int(all->bad, 0, "irq: VM names and descriptions well formed");
	is_str(all->r[0].name, "24", "irq: VM first line is IRQ 24");
	is_str(all->r[0].desc, "IO-APIC   5-edge      ACPI:Ged",
	       "irq: VM description trimmed, inner blanks and ':' kept");
	r = irq_find(all, "36");
	ok(r && r->total == 60362 &&
	   !strcmp(r->desc, "PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
	   "irq: VM IRQ 36 sums both CPUs; chip one blank after the last count");
	r = irq_find(all, "LOC");
	ok(r && r->total == 117352 + 115287 && !strcmp(r->desc, "Local timer interrupts"),
	   "irq: VM LOC");
	r = irq_find(all, "ERR");
	ok(r && r->total == 0 && !r->desc[0], "irq: VM ERR single count, empty description");
	ok(!irq_find(all, "MCE"), "irq: VM has no MCE line");
	is_str(all->r[all->n - 1].name, "PIW", "irq: VM last line PIW");
	is_int(irq_truncations(irq_sample, sizeof(irq_sample) - 1, all), 0,
	       "irq: VM every truncation 0..%zu: -EINVAL before the header, then complete lines",
	       sizeof(irq_sample) - 1);

	/* The 4-CPU host with a machine check. */
	memset(all, 0, sizeof(*all));
	is_int(parse_interrupts(S(irq_mce_sample), irq_collect, all), 0, "irq: 4-CPU sample");
	is_int(all->n, (int)count_lines(S(irq_mce_sample)) - 1, "irq: 4-CPU every line");
	is_int(all->bad, 0, "irq: 4-CPU names and descriptions well formed");
	r = irq_find(all, "MCE");
	ok(r && r->total == 1 && !strcmp(r->desc, "Machine check exceptions"),
	   "irq: 4-CPU MCE sums to the one exception");
	r = irq_find(all, "MCP");
	ok(r && r->total == 4 * 1607 && !strcmp(r->desc, "Machine check polls"), "irq: 4-CPU MCP");
	r = irq_find(all, "LOC");
	ok(r && r->total == 48213377ull + 47109821 + 46822190 + 47532614, "irq: 4-CPU LOC sum");
	r = irq_find(all, "16");
	ok(r && r->total == 25 &&
	   !strcmp(r->desc, "IO-APIC  16-fasteoi   ehci_hcd:usb1, i801_smbus"),
	   "irq: 4-CPU shared IRQ 16, description with ':' and ','");
	r = irq_find(all, "124");
	ok(r && r->total == 31337001 && !strcmp(r->desc, "IR-PCI-MSI 1048576-edge      nvme0q0"),
	   "irq: 4-CPU the hwirq number in the description is not a count");
	r = irq_find(all, "MIS");
	ok(r && r->total == 0 && !r->desc[0], "irq: 4-CPU MIS single count");
	is_int(irq_truncations(irq_mce_sample, sizeof(irq_mce_sample) - 1, all), 0,
	       "irq: 4-CPU every truncation 0..%zu: -EINVAL before the header, then complete lines",
	       sizeof(irq_mce_sample) - 1);

	/* Overflow: a count that does not fit, or a sum that would wrap, drops its line only. */
	memset(l, 0, sizeof(*l));
	is_int(parse_interrupts(S("      CPU0   CPU1\n"
				  "  1:  18446744073709551615  0  IO-APIC  1-edge  max\n"
				  "  2:  18446744073709551616  0  IO-APIC  2-edge  over0\n"
				  "  3:  5  18446744073709551616  IO-APIC  3-edge  over1\n"
				  "  4:  18446744073709551615  1  IO-APIC  4-edge  wraps\n"
				  "  5:  18446744073709551615  1\n"
				  "  6:  99999999999999999999999999999  0  IO-APIC  6-edge  long\n"
				  "ERR:  18446744073709551616\n"
				  "MIS:  18446744073709551615\n"
				  "  7:  4294967295  4294967295  IO-APIC  7-edge  u32max\n"),
				irq_collect, l),
	       0, "irq overflow: parses");
	is_int(l->n, 3, "irq overflow: only the lines that fit are reported");
	ok(l->n == 3 && !strcmp(l->r[0].name, "1") && l->r[0].total == UINT64_MAX,
	   "irq overflow: UINT64_MAX itself is a count");
	ok(l->n == 3 && !strcmp(l->r[1].name, "MIS") && l->r[1].total == UINT64_MAX,
	   "irq overflow: single-count UINT64_MAX kept");
	ok(l->n == 3 && !strcmp(l->r[2].name, "7") && l->r[2].total == 2ull * UINT32_MAX,
	   "irq overflow: u32 counts summed in 64 bits");
	ok(!irq_find(l, "5"), "irq overflow: a wrapping sum is not read as a single count");

	/* Lines of the wrong shape. */
	memset(l, 0, sizeof(*l));
	is_int(parse_interrupts(S("           CPU0       CPU1       CPU2\r\n"
				  "  0:  1  2  3   IO-APIC   2-edge   timer  \r\n"
				  "  1:  1  2      IO-APIC   1-edge   two-of-three\n"
				  "  2:  1         lone-count-with-text\n"
				  "  3:  1  2  3  4  extra-number-is-text\n"
				  "  4:  1  2x 3   junk-in-a-count\n"
				  "  5:  1  -2 3   negative\n"
				  "a b:  1  2  3   blank-in-name\n"
				  "   :  1  2  3   no-name\n"
				  "  no colon 1 2 3\n"
				  "  6:\n"
				  "  7:  1  2  3\n"
				  "ERR:  4  \r\n"
				  "\n"
				  "  8:  1  2  3   cut"),
				irq_collect, l),
	       0, "irq shapes: parses");
	is_int(l->n, 4, "irq shapes: four lines reported");
	ok(l->n == 4 && !strcmp(l->r[0].name, "0") && l->r[0].total == 6 &&
	   !strcmp(l->r[0].desc, "IO-APIC   2-edge   timer"),
	   "irq shapes: CRLF and trailing blanks trimmed from the description");
	ok(l->n == 4 && !strcmp(l->r[1].name, "3") && l->r[1].total == 6 &&
	   !strcmp(l->r[1].desc, "4  extra-number-is-text"),
	   "irq shapes: counts stop at the header's column count");
	ok(l->n == 4 && !strcmp(l->r[2].name, "7") && l->r[2].total == 6 && !l->r[2].desc[0],
	   "irq shapes: no description is an empty one");
	ok(l->n == 4 && !strcmp(l->r[3].name, "ERR") && l->r[3].total == 4 && !l->r[3].desc[0],
	   "irq shapes: single count with trailing blanks");
	ok(!irq_find(l, "1") && !irq_find(l, "2"),
	   "irq shapes: fewer counts than CPUs (other than a lone count) skipped");
	ok(!irq_find(l, "8"), "irq shapes: last line without '\\n' ignored");

	/* The header. */
	memset(l, 0, sizeof(*l));
	is_int(parse_interrupts(NULL, 0, irq_collect, l), -EINVAL, "irq: NULL, 0 is no header");
	is_int(parse_interrupts("", 0, irq_collect, l), -EINVAL, "irq: empty is no header");
	is_int(parse_interrupts(S("           CPU0       CPU1       "), irq_collect, l), -EINVAL,
	       "irq: header without its '\\n' is a cut read");
	is_int(parse_interrupts(S("  0:  1  2  IO-APIC  timer\nLOC:  1  2  Local\n"), irq_collect,
				l), -EINVAL, "irq: no header line");
	is_int(parse_interrupts(S("\n           CPU0\n  0:  1  timer\n"), irq_collect, l), -EINVAL,
	       "irq: header must be the first line");
	is_int(parse_interrupts(S("   CPU0   CPUs\n  0:  1  2  timer\n"), irq_collect, l), -EINVAL,
	       "irq: 'CPUs' is not a column");
	is_int(parse_interrupts(S("   CPU0   CPU\n  0:  1  2  timer\n"), irq_collect, l), -EINVAL,
	       "irq: 'CPU' without a number is not a column");
	is_int(parse_interrupts(S("   CPU0   x\n  0:  1  2  timer\n"), irq_collect, l), -EINVAL,
	       "irq: another word in the header");
	is_int(l->n, 0, "irq: no callback without a header");
	is_int(parse_interrupts(S("   CPU0   CPU1\n"), irq_collect, l), 0, "irq: header alone");
	is_int(l->n, 0, "irq: header alone gives no line");
	/* Offline CPUs leave gaps in the numbering; the columns are the words. */
	is_int(parse_interrupts(S("   CPU0   CPU2   CPU7\nLOC:  1  2  3  Local timer\n"),
				irq_collect, l), 0, "irq: sparse CPU numbers");
	ok(l->n == 1 && l->r[0].total == 6, "irq: sparse CPU numbers, three columns");

	/* A wide header: nothing is sized by the column count. */
	{
		size_t k, off = 0;

		for (k = 0; k < 40; k++)
			off += sprintf(buf + off, " CPU%zu", k);
		off += sprintf(buf + off, "\nLOC: 1 1 1 Local\nERR: 3\n");
		n = (int)off;
		memset(l, 0, sizeof(*l));
		is_int(parse_interrupts(buf, n, irq_collect, l), 0, "irq: 40 columns");
		ok(l->n == 1 && !strcmp(l->r[0].name, "ERR") && l->r[0].total == 3,
		   "irq: 40 columns, a 3-count line skipped, ERR kept");
	}

	/* The callback's stop. */
	memset(l, 0, sizeof(*l));
	l->stop_at = 3;
	is_int(parse_interrupts(S(irq_mce_sample), irq_collect, l), 7,
	       "irq: callback stop returned");
	is_int(l->n, 3, "irq: no call after the stop");
	free(all);
	free(l);
}

/* ---- the record families: a parse rendered as text, against every cut ---- */

/*
 * What a parser found, written out as text: one line per callback (or per
 * result), so a whole parse compares with one string and two parses with
 * memcmp.
 */
struct render {
	char s[16384];
	size_t n;
};

static void __attribute__((format(printf, 2, 3))) render_add(struct render *r, const char *fmt,
							      ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(r->s + r->n, sizeof(r->s) - r->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(r->s) - r->n)
		abort(); /* a rendering too big for the test: make the buffer bigger */
	r->n += (size_t)k;
}

static void render_word(struct render *r, struct parse_word w)
{
	render_add(r, "%.*s|", (int)w.n, w.p ? w.p : "");
}

typedef void (*render_fn)(const char *buf, size_t len, struct render *out);

static void render(render_fn fn, const char *buf, size_t len, struct render *out)
{
	char *b = dup_exact(buf, len);

	out->n = 0;
	out->s[0] = '\0';
	fn(b, len, out);
	free(b);
}

/*
 * The rule at the top of parse.h, for one parser and one real sample: every
 * cut (each length from 0 to the whole) gives exactly what its complete
 * lines give, so a cut line is never reported in part. Each copy is a heap
 * block of its exact length (ASan sees a read past it). Returns the
 * number of cuts that disagree.
 */
static int cuts_agree(render_fn fn, const char *sample, size_t n, const char *what)
{
	static struct render got, want;
	int bad = 0;

	for (size_t cut = 0; cut <= n; cut++) {
		size_t whole = cut;

		while (whole && sample[whole - 1] != '\n')
			whole--;
		render(fn, sample, cut, &got);
		render(fn, sample, whole, &want);
		if (got.n != want.n || memcmp(got.s, want.s, got.n)) {
			if (!bad)
				printf("# %s cut at %zu: got '%s', want '%s'\n", what, cut, got.s,
				       want.s);
			bad++;
		}
	}
	return bad;
}

/* The whole sample (real text where this VM has it) renders as want; every cut keeps the rule. */
static void check_sample(render_fn fn, const char *sample, const char *want, const char *what)
{
	static struct render got;

	render(fn, sample, strlen(sample), &got);
	is_str(got.s, want, "%s: the sample reads as expected", what);
	is_int(cuts_agree(fn, sample, strlen(sample), what), 0,
	       "%s: every cut of it gives its complete lines, never a cut value", what);
}

/* ---- mounts and capacity (parse_mount.c) ---- */

/* /proc/self/mountinfo of this VM, a bind mount with an optional field among them. */
static const char mountinfo_sample[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334460k,nr_inodes=3083615,"
	"mode=755\n"
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,"
	"resgid=65534\n"
	"28 27 0:25 / /mnt/sandboxing/model_tools_env/v1/python ro,nosuid,nodev,relatime - tmpfs "
	"model_tools_unavailable ro,size=4k,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	"42 27 254:0 /run/netns /run/netns rw,relatime shared:1 - ext4 /dev/vda rw,discard,"
	"resv_strict,resuid=65534,resgid=65534\n";

static int render_mount(const struct mountinfo_line *m, void *arg)
{
	struct render *r = arg;

	render_add(r, "%llu %llu %u:%u ", (unsigned long long)m->id,
		   (unsigned long long)m->parent, m->major, m->minor);
	render_word(r, m->root);
	render_word(r, m->point);
	render_word(r, m->fstype);
	render_word(r, m->source);
	render_word(r, m->super);
	render_add(r, "\n");
	return 0;
}

static void render_mountinfo(const char *b, size_t n, struct render *r)
{
	parse_mountinfo(b, n, render_mount, r);
}

/* /proc/swaps of this VM with a swap file on (16 MiB, swapon -p -2), and its header. */
static const char swaps_sample[] =
	"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	"/tmp/parse-swap.JXRegn/swap.img         file\t\t16380\t\t0\t\t-2\n"
	"/dev/vda2                               partition\t2097148\t\t1887436\t\t-2\n";

static int render_swap(const struct swap_line *s, void *arg)
{
	struct render *r = arg;

	render_word(r, s->name);
	render_word(r, s->type);
	render_add(r, "%llu %llu %lld\n", (unsigned long long)s->size_kb,
		   (unsigned long long)s->used_kb, (long long)s->priority);
	return 0;
}

static void render_swaps(const char *b, size_t n, struct render *r)
{
	parse_swaps(b, n, render_swap, r);
}

/* sonde:statfs of a run on this VM (collect/mounts.c), an err= and the cut line added. */
static const char statfs_sample[] =
	"pseudo\t0:21\tproc\tproc\t/proc\t-\n"
	"ok\t0:6\tdevtmpfs\tdevtmpfs\t/dev\t-\t4096 3083615 3083615 3083615 3083615 3083501 4096\n"
	"ok\t254:0\text4\t/dev/vda\t/\tvda\t4096 66053021 60963751 19995027 16777216 16283733 4096\n"
	"ok\t0:25\ttmpfs\tmodel_tools_unavailable\t/mnt/sandboxing/model_tools_env/v1/python\t-\t"
	"4096 1 1 1 3085510 3085509 4103\n"
	"err=13\t0:50\tfuse\tsshfs\t/mnt/a\\040b\t-\n"
	"cut\t3\n";

static int render_statfs_line(const struct statfs_line *s, void *arg)
{
	struct render *r = arg;

	render_word(r, s->status);
	render_word(r, s->dev);
	render_word(r, s->fstype);
	render_word(r, s->source);
	render_word(r, s->point);
	render_word(r, s->device);
	render_add(r, "%d %d", s->nfields, s->has_numbers);
	if (s->has_numbers)
		render_add(r, " %llu %llu %llu %llu %llu %llu %llu", (unsigned long long)s->frsize,
			   (unsigned long long)s->blocks, (unsigned long long)s->bfree,
			   (unsigned long long)s->bavail, (unsigned long long)s->files,
			   (unsigned long long)s->ffree, (unsigned long long)s->flag);
	if (s->has_err)
		render_add(r, " err %d", s->err);
	render_add(r, "\n");
	return 0;
}

static void render_statfs(const char *b, size_t n, struct render *r)
{
	parse_statfs_record(b, n, render_statfs_line, r);
}

static void test_mounts(void)
{
	static struct render r;
	char out[64];

	check_sample(render_mountinfo, mountinfo_sample,
		     "22 27 0:21 /|/proc|proc|proc|rw|\n"
		     "24 27 0:6 /|/dev|devtmpfs|devtmpfs|rw,size=12334460k,nr_inodes=3083615,"
		     "mode=755|\n"
		     "27 1 254:0 /|/|ext4|/dev/vda|rw,discard,resv_strict,resuid=65534,"
		     "resgid=65534|\n"
		     "28 27 0:25 /|/mnt/sandboxing/model_tools_env/v1/python|tmpfs|"
		     "model_tools_unavailable|ro,size=4k,mode=755|\n"
		     "32 31 0:29 /|/sys/fs/cgroup/cpu|cgroup|cgroup|rw,cpu|\n"
		     "41 31 0:38 /|/sys/fs/cgroup/unified|cgroup2|cgroup2|rw|\n"
		     "42 27 254:0 /run/netns|/run/netns|ext4|/dev/vda|rw,discard,resv_strict,"
		     "resuid=65534,resgid=65534|\n",
		     "mountinfo");
	render(render_mountinfo, S("30 1 0:40 / /mnt rw - tmpfs  rw\n"), &r);
	is_str(r.s, "30 1 0:40 /|/mnt|tmpfs||rw|\n",
	       "mountinfo: a mount of source \"\" (two words after \"-\") has an empty source");
	render(render_mountinfo,
	       S("30 1 0:40 / /mnt rw - tmpfs\n"          /* no source, no super options */
		 "30 1 0:40 / /mnt rw tmpfs x rw\n"       /* no "-" */
		 "30 1 040 / /mnt rw - tmpfs x rw\n"      /* not MAJ:MIN */
		 "x 1 0:40 / /mnt rw - tmpfs x rw\n"      /* not a number */
		 "30 1 0:40 / /mnt rw - tmpfs x rw y\n"   /* a word too many */
		 "30 1 0:4294967296 / /mnt rw - t x rw\n" /* minor past 32 bits */
		 "31 1 0:41 / /m\\040n rw - tmpfs x rw\n"),
	       &r);
	is_str(r.s, "31 1 0:41 /|/m\\040n|tmpfs|x|rw|\n",
	       "mountinfo: lines of another shape are skipped, the escaped point kept as printed");
	is_int(parse_unescape_octal(S("/m\\040n\\134"), out), 5, "unescape: length");
	ok(!memcmp(out, "/m n\\", 5), "unescape: \\040 and \\134 by length");

	check_sample(render_swaps, swaps_sample,
		     "/tmp/parse-swap.JXRegn/swap.img|file|16380 0 -2\n"
		     "/dev/vda2|partition|2097148 1887436 -2\n",
		     "swaps");
	render(render_swaps,
	       S("Filename Type Size Used Priority\n"
		 "/a partition 1 2\n"                   /* no priority */
		 "/b partition 1 2 -3 x\n"              /* a field too many */
		 "/c partition 18446744073709551616 2 -1\n" /* size past 64 bits */
		 "/d partition 1 2 -9223372036854775808\n"),
	       &r);
	is_str(r.s, "/d|partition|1 2 -9223372036854775808\n",
	       "swaps: short, long and overflowing lines skipped; INT64_MIN priority kept");
	render(render_swaps, S("/dev/vda2 partition 1 2 -2\n"), &r);
	is_str(r.s, "", "swaps: the first line is the header, whatever it says");

	check_sample(render_statfs, statfs_sample,
		     "pseudo|0:21|proc|proc|/proc||6 0\n"
		     "ok|0:6|devtmpfs|devtmpfs|/dev||7 1 4096 3083615 3083615 3083615 3083615 "
		     "3083501 4096\n"
		     "ok|254:0|ext4|/dev/vda|/|vda|7 1 4096 66053021 60963751 19995027 16777216 "
		     "16283733 4096\n"
		     "ok|0:25|tmpfs|model_tools_unavailable|/mnt/sandboxing/model_tools_env/v1/"
		     "python||7 1 4096 1 1 1 3085510 3085509 4103\n"
		     "err=13|0:50|fuse|sshfs|/mnt/a\\040b||6 0 err 13\n",
		     "statfs");
	render(render_statfs,
	       S("ok\t1:2\text4\t/dev/x\t/x\tx\t4096 1 2 3 4 5\n"     /* six numbers */
		 "ok\t1:2\text4\t/dev/x\t/y\tx\t4096 1 2 3 4 5 6 7\n" /* eight */
		 "ok\t1:2\text4\t/dev/x\t\tx\t4096 1 2 3 4 5 6\n"     /* no mount point */
		 "ok\t1:2\text4\t/dev/x\t/z\tx\t1 2 3 4 5 6 7\tmore\n"
		 "err=x\t1:2\tnfs\ts\t/e\t-\n"),
	       &r);
	is_str(r.s,
	       "ok|1:2|ext4|/dev/x|/x|x|7 0\n"
	       "ok|1:2|ext4|/dev/x|/y|x|7 0\n"
	       "err=x|1:2|nfs|s|/e||6 0 err 0\n",
	       "statfs: wrong counts of numbers give no numbers; no mount point, 8 fields skipped");
}

/* ---- one-value files and /sys attributes (parse_value.c, parse_sys.c) ---- */

static void render_u64(const char *b, size_t n, struct render *r)
{
	uint64_t v;

	if (!parse_value_u64(b, n, &v))
		render_add(r, "%llu", (unsigned long long)v);
}

static void render_i64(const char *b, size_t n, struct render *r)
{
	int64_t v;

	if (!parse_value_i64(b, n, &v))
		render_add(r, "%lld", (long long)v);
}

static void render_hex(const char *b, size_t n, struct render *r)
{
	uint64_t v;

	if (!parse_value_hex(b, n, &v))
		render_add(r, "%llu", (unsigned long long)v);
}

static void render_u64x2(const char *b, size_t n, struct render *r)
{
	uint64_t v[2];

	if (!parse_value_u64s(b, n, v, 2))
		render_add(r, "%llu %llu", (unsigned long long)v[0], (unsigned long long)v[1]);
}

static void render_link_speed(const char *b, size_t n, struct render *r)
{
	double v;

	if (!parse_pci_link_speed(b, n, &v))
		render_add(r, "%g", v);
}

static void render_aer(const char *b, size_t n, struct render *r)
{
	uint64_t v;

	if (!parse_aer_counters(b, n, &v))
		render_add(r, "%llu", (unsigned long long)v);
}

/* aer_dev_correctable as the kernel prints it (this VM has no PCI Express: no AER). */
static const char aer_sample[] =
	"RxErr 5\n"
	"BadTLP 0\n"
	"BadDLLP 0\n"
	"Rollover 0\n"
	"Timeout 0\n"
	"NonFatalErr 0\n"
	"CorrIntErr 0\n"
	"HeaderOF 0\n"
	"TOTAL_ERR_COR 7\n";

static void test_values(void)
{
	static struct render r;
	double d = 0;

	/* this VM: /sys/block/vda/size, /sys/class/net/eth0/speed and mtu, tcp_tw_reuse */
	check_sample(render_u64, "536870912\n", "536870912", "value: vda size");
	check_sample(render_u64, "2\n", "2", "value: tcp_tw_reuse");
	check_sample(render_i64, "-1\n", "-1", "value: eth0 speed");
	check_sample(render_i64, "1400\n", "1400", "value: eth0 mtu, signed");
	check_sample(render_hex, "0x1f\n", "31", "value: ioerr_cnt (%#x)");
	check_sample(render_u64x2, "       0        0\n", "0 0", "value: vda inflight");
	check_sample(render_u64x2, "32768\t60999\n", "32768 60999", "value: ip_local_port_range");
	render(render_u64, S("  12  \n"), &r);
	is_str(r.s, "12", "value: blanks around the number are no part of it");
	render(render_u64, S("12 kB\n"), &r);
	is_str(r.s, "", "value: a unit after the number is not a one-number file");
	render(render_u64, S("18446744073709551615\n"), &r);
	is_str(r.s, "18446744073709551615", "value: UINT64_MAX");
	render(render_u64, S("18446744073709551616\n"), &r);
	is_str(r.s, "", "value: past UINT64_MAX refused, not clamped");
	render(render_i64, S("-9223372036854775809\n"), &r);
	is_str(r.s, "", "value: below INT64_MIN refused");
	render(render_u64, S("-1\n"), &r);
	is_str(r.s, "", "value: a sign is not unsigned");
	render(render_u64, S("\n"), &r);
	is_str(r.s, "", "value: an empty line is no number");
	render(render_hex, S("1f\n"), &r);
	is_str(r.s, "31", "value: hex without 0x");
	render(render_u64x2, S("1 2 3\n"), &r);
	is_str(r.s, "", "value: three numbers where two are asked");
	render(render_u64x2, S("1\n"), &r);
	is_str(r.s, "", "value: one number where two are asked");

	ok(!parse_kv_double(S("1.2345678901234567e+20"), &d) && d == 1.2345678901234567e+20,
	   "kv double: %%.17g with an exponent reads back the same double");
	ok(!parse_kv_double(S(" -0.10000000000000001 "), &d) && d == -0.1,
	   "kv double: negative, blanks around");
	ok(parse_kv_double(S("1e999"), &d) == -EINVAL, "kv double: overflow refused");
	ok(parse_kv_double(S("12x"), &d) == -EINVAL, "kv double: trailing junk refused");
	ok(parse_kv_double(S(""), &d) == -EINVAL, "kv double: empty refused");
	ok(parse_kv_double(S("1\0002"), &d) == -EINVAL, "kv double: a NUL inside refused");

	check_sample(render_link_speed, "8.0 GT/s PCIe\n", "8", "pci link speed (5.x)");
	check_sample(render_link_speed, "2.5 GT/s\n", "2.5", "pci link speed (before 4.17)");
	check_sample(render_link_speed, "Unknown\n", "", "pci link speed: Unknown");
	render(render_link_speed, S("16.0GT/s\n"), &r);
	is_str(r.s, "", "pci link speed: no blank before the unit");
	render(render_link_speed, S("16.0 MB/s\n"), &r);
	is_str(r.s, "", "pci link speed: another unit");

	check_sample(render_aer, aer_sample, "7", "aer: the kernel's TOTAL_ line, not the sum");
	render(render_aer, S("RxErr 5\nBadTLP 2\n"), &r);
	is_str(r.s, "7", "aer: no TOTAL_ line: the sum");
	render(render_aer, S("RxErr 18446744073709551615\nBadTLP 2\n"), &r);
	is_str(r.s, "", "aer: a sum that does not fit is refused");
	render(render_aer, S("RxErr x\n"), &r);
	is_str(r.s, "", "aer: no counter");
}

/* ---- the network tables (parse_net.c) ---- */

/* sonde:listen of a run on this VM (a web server on 18099); an IPv6 listener and "cut" added. */
static const char listen_sample[] =
	"4 0.0.0.0 2024 0 128 1151 0\n"
	"4 0.0.0.0 18099 0 5 5734372 0\n"
	"6 :: 22 0 4096 1081 0\n"
	"cut\n";

static int render_listen_line(const struct net_listen_line *l, void *arg)
{
	struct render *r = arg;

	if (l->cut) {
		render_add(r, "cut\n");
		return 0;
	}
	render_add(r, "%u ", l->family);
	render_word(r, l->addr);
	render_add(r, "%u %u %u %llu %u\n", l->port, l->queue, l->backlog,
		   (unsigned long long)l->inode, l->uid);
	return 0;
}

static void render_listen(const char *b, size_t n, struct render *r)
{
	parse_net_listen(b, n, render_listen_line, r);
}

/* sonde:accepts as the use.network-listen/overflow case writes it. */
static const char accepts_sample[] =
	"127.0.0.1 8080 13 -\n"
	"127.0.0.1 8080 14 5\n";

static int render_accepts_line(const struct net_accepts_line *a, void *arg)
{
	struct render *r = arg;

	render_word(r, a->addr);
	render_add(r, "%u %llu", a->port, (unsigned long long)a->accepted);
	if (a->has_fresh)
		render_add(r, " new %llu", (unsigned long long)a->fresh);
	render_add(r, "\n");
	return 0;
}

static void render_accepts(const char *b, size_t n, struct render *r)
{
	parse_net_accepts(b, n, render_accepts_line, r);
}

/* sonde:owners of a recorded run on this machine kind (use.filesystem-waits/frozen). */
static const char owners_sample[] =
	"1198645 30923 3\n"
	"1198758 31286 3\n"
	"scanned 125 876\n";

static int render_owner_line(const struct net_owner_line *o, void *arg)
{
	struct render *r = arg;

	if (o->scanned)
		render_add(r, "scanned %llu %llu%s\n", (unsigned long long)o->procs,
			   (unsigned long long)o->fds, o->cut ? " cut" : "");
	else
		render_add(r, "%llu %u %u\n", (unsigned long long)o->inode, o->pid, o->fd);
	return 0;
}

static void render_owners(const char *b, size_t n, struct render *r)
{
	parse_net_owners(b, n, render_owner_line, r);
}

/* sonde:ports of a recorded run on this machine kind (use.filesystem-waits/frozen). */
static const char ports_sample[] =
	"range 32768 60999\n"
	"sockets 113\n"
	"timewait 109\n"
	"ports 113\n"
	"dst 127.0.0.1 54333 65 1198645,1197040,1200139 62\n"
	"dst 127.0.0.1 46837 25 - 25\n"
	"dst 10.251.55.2 22 23 1198758 22\n";

static int render_ports_line(const struct net_ports_line *l, void *arg)
{
	struct render *r = arg;

	switch (l->kind) {
	case NET_PORTS_RANGE:
		render_add(r, "range %u-%u\n", l->lo, l->hi);
		break;
	case NET_PORTS_TOTAL:
		render_word(r, l->name);
		render_add(r, "%llu\n", (unsigned long long)l->value);
		break;
	case NET_PORTS_CUT:
		render_add(r, "cut\n");
		break;
	case NET_PORTS_DST:
		render_add(r, "dst ");
		render_word(r, l->addr);
		render_add(r, "%u %llu [", l->port, (unsigned long long)l->count);
		for (size_t k = 0; k < l->ninodes; k++)
			render_add(r, "%s%llu", k ? " " : "", (unsigned long long)l->inodes[k]);
		render_add(r, "]");
		if (l->has_timewait)
			render_add(r, " tw %llu", (unsigned long long)l->timewait);
		render_add(r, "\n");
		break;
	}
	return 0;
}

static void render_ports(const char *b, size_t n, struct render *r)
{
	parse_net_ports(b, n, render_ports_line, r);
}

/* sonde:links and sonde:qdisc of a run on this VM. */
static const char links_sample[] =
	"1 lo - 0\n"
	"2 ifb0 ifb 0\n"
	"3 ifb1 ifb 0\n"
	"4 eth0 - 0\n";

static const char qdisc_sample[] =
	"1 noqueue 0 ffffffff 0 0 0 0 0 0 0\n"
	"4 pfifo_fast 0 ffffffff 406760 5148 0 0 0 0 0\n";

static int render_link_line(const struct net_link_line *l, void *arg)
{
	struct render *r = arg;

	render_add(r, "%u ", l->ifindex);
	render_word(r, l->name);
	render_word(r, l->kind);
	render_add(r, "%u\n", l->master);
	return 0;
}

static void render_links(const char *b, size_t n, struct render *r)
{
	parse_net_links(b, n, render_link_line, r);
}

static int render_qdisc_line(const struct net_qdisc_line *q, void *arg)
{
	struct render *r = arg;

	render_add(r, "%u ", q->ifindex);
	render_word(r, q->kind);
	render_add(r, "%x %x %llu %u %u %u %u %u %u\n", q->handle, q->parent,
		   (unsigned long long)q->bytes, q->packets, q->drops, q->overlimits, q->requeues,
		   q->backlog, q->qlen);
	return 0;
}

static void render_qdisc(const char *b, size_t n, struct render *r)
{
	parse_net_qdisc(b, n, render_qdisc_line, r);
}

static void test_net_records(void)
{
	static struct render r;
	uint64_t ino = 0;

	check_sample(render_listen, listen_sample,
		     "4 0.0.0.0|2024 0 128 1151 0\n"
		     "4 0.0.0.0|18099 0 5 5734372 0\n"
		     "6 ::|22 0 4096 1081 0\n"
		     "cut\n",
		     "sonde:listen");
	render(render_listen,
	       S("5 1.2.3.4 80 0 1 2 0\n"          /* family 5 */
		 "4 1.2.3.4 65536 0 1 2 0\n"       /* port past 16 bits */
		 "4 1.2.3.4 80 4294967296 1 2 0\n" /* queue past 32 bits */
		 "4 1.2.3.4 80 0 1 2\n"            /* no uid */
		 "4 1.2.3.4 80 0 1 2 0 9\n"        /* a field too many */
		 "cut now\n"),
	       &r);
	is_str(r.s, "", "sonde:listen: wrong family, port, width, count refused");

	check_sample(render_accepts, accepts_sample,
		     "127.0.0.1|8080 13\n"
		     "127.0.0.1|8080 14 new 5\n",
		     "sonde:accepts");
	render(render_accepts, S("127.0.0.1 8080 14 x\n127.0.0.1 8080 14\n"), &r);
	is_str(r.s, "", "sonde:accepts: NEW neither a number nor \"-\", or missing, refused");

	check_sample(render_owners, owners_sample,
		     "1198645 30923 3\n"
		     "1198758 31286 3\n"
		     "scanned 125 876\n",
		     "sonde:owners");
	render(render_owners, S("scanned 1 2 cut\nscanned 1 2 later\nscanned 1\n1 2\n"), &r);
	is_str(r.s, "scanned 1 2 cut\n", "sonde:owners: \"cut\" is the only word after the counts");

	check_sample(render_ports, ports_sample,
		     "range 32768-60999\n"
		     "sockets|113\n"
		     "timewait|109\n"
		     "ports|113\n"
		     "dst 127.0.0.1|54333 65 [1198645 1197040 1200139] tw 62\n"
		     "dst 127.0.0.1|46837 25 [] tw 25\n"
		     "dst 10.251.55.2|22 23 [1198758] tw 22\n",
		     "sonde:ports");
	render(render_ports,
	       S("dst 1.2.3.4 80 5 7\n"                  /* before TIMEWAIT was written */
		 "dst 1.2.3.4 80 5 1,,2 3\n"             /* an empty inode */
		 "dst 1.2.3.4 80 5 1,2, 3\n"             /* a trailing comma */
		 "dst 1.2.3.4 80 5 1,2,3,4,5,6,7,8,9 3\n" /* more than the struct keeps */
		 "range 1\n"
		 "other 4 5\n"
		 "cut\n"),
	       &r);
	is_str(r.s,
	       "dst 1.2.3.4|80 5 [7]\n"
	       "dst 1.2.3.4|80 5 [1 2 3 4 5 6 7 8] tw 3\n"
	       "cut\n",
	       "sonde:ports: TIMEWAIT optional, bad inode lists and short lines refused");

	check_sample(render_links, links_sample,
		     "1 lo||0\n2 ifb0|ifb|0\n3 ifb1|ifb|0\n4 eth0||0\n", "sonde:links");
	check_sample(render_qdisc, qdisc_sample,
		     "1 noqueue|0 ffffffff 0 0 0 0 0 0 0\n"
		     "4 pfifo_fast|0 ffffffff 406760 5148 0 0 0 0 0\n",
		     "sonde:qdisc");
	render(render_qdisc,
	       S("4 fq 0 1ffffffff 1 2 3 4 5 6 7\n" /* parent past 32 bits */
		 "4 fq 0 ffffffff 1 2 3 4 5 6\n"    /* no qlen */
		 "-4 fq 0 ffffffff 1 2 3 4 5 6 7\n"),
	       &r);
	is_str(r.s, "", "sonde:qdisc: wide handles, short lines, negative ifindex refused");

	ok(!parse_socket_link(S("socket:[5734372]"), &ino) && ino == 5734372,
	   "socket link: the inode");
	ok(parse_socket_link(S("socket:[5734372"), &ino) == -EINVAL, "socket link: cut");
	ok(parse_socket_link(S("pipe:[12]"), &ino) == -EINVAL, "socket link: a pipe");
	ok(parse_socket_link(S("socket:[]"), &ino) == -EINVAL, "socket link: no inode");
}

/* ---- pids in names, sonde's per-process records (parse_pid.c) ---- */

/* sonde:fds of a run on this VM (init holds 293 fds, kernel threads none). */
static const char fds_sample[] =
	"1 293\n"
	"2 0\n"
	"3 0\n"
	"4 0\n";

static int render_fds_line(int pid, uint64_t n, void *arg)
{
	render_add(arg, "%d=%llu\n", pid, (unsigned long long)n);
	return 0;
}

static void render_fds(const char *b, size_t n, struct render *r)
{
	parse_fds_record(b, n, render_fds_line, r);
}

/* sonde:files of a recorded run on this machine kind (a deleted file among them). */
static const char files_sample[] =
	"suspect\t20700\tcpu\n"
	"cwd\t20700\t254:0\t5326546\t/work/wt-unwind\n"
	"suspect\t21301\twrite_bytes,wchar,fds,cpu\n"
	"file\t21301\t3\tr\t254:0\t10953002\t3142195\t3145728\t1\t"
	"/tmp/test_bundle_read.y1Ew2x/in/million.tar.zst\n"
	"file\t21301\t4\trw\t0:26\t200014\t0\t0\t1\t"
	"/dev/shm/test_bundle_read.gFQO86/.sonde-open-1ot8KT.lock\n"
	"file\t2926\t1\tw\t254:0\t10957943\t2908\t4096\t0\t/tmp/bash_jobs.0/2dbb9dd1bfee/"
	"stdout\\040(deleted)\n"
	"cut\n";

static int render_files_line(const struct files_line *f, void *arg)
{
	struct render *r = arg;

	switch (f->kind) {
	case FILES_SUSPECT:
		render_add(r, "suspect %d ", f->pid);
		render_word(r, f->reasons);
		break;
	case FILES_CWD:
		render_add(r, "cwd %d ", f->pid);
		render_word(r, f->dev);
		render_add(r, "%llu ", (unsigned long long)f->ino);
		render_word(r, f->path);
		break;
	case FILES_FILE:
		render_add(r, "file %d %llu ", f->pid, (unsigned long long)f->fd);
		render_word(r, f->mode);
		render_word(r, f->dev);
		render_add(r, "%llu %llu %llu %llu ", (unsigned long long)f->ino,
			   (unsigned long long)f->size, (unsigned long long)f->blocks_bytes,
			   (unsigned long long)f->nlink);
		render_word(r, f->path);
		break;
	case FILES_CUT:
		render_add(r, "cut");
		break;
	}
	render_add(r, "\n");
	return 0;
}

static void render_files(const char *b, size_t n, struct render *r)
{
	parse_files_record(b, n, render_files_line, r);
}

static void test_pid_records(void)
{
	static struct render r;
	const char *file = NULL;

	is_int(parse_pid_name(S("4503")), 4503, "pid name: a /proc directory");
	is_int(parse_pid_name(S("self")), -1, "pid name: self is no pid");
	is_int(parse_pid_name(S("0")), -1, "pid name: 0 is no process");
	is_int(parse_pid_name(S("12a")), -1, "pid name: digits only");
	is_int(parse_pid_name(S("-5")), -1, "pid name: no sign");
	is_int(parse_pid_name(S("")), -1, "pid name: empty");
	is_int(parse_pid_name(S("1073741824")), PARSE_PID_MAX, "pid name: PARSE_PID_MAX");
	is_int(parse_pid_name(S("1073741825")), -1, "pid name: above PARSE_PID_MAX");
	is_int(parse_pid_name(S("99999999999999999999999")), -1, "pid name: past 64 bits");
	is_int(parse_capture_pid_path("/proc/4503/stat", &file), 4503, "capture path: /proc/PID/stat");
	is_str(file, "stat", "capture path: its file");
	is_int(parse_capture_pid_path("sonde:task/77", &file), 77, "capture path: sonde:task/PID");
	is_str(file, "task", "capture path: sonde:task is the file \"task\"");
	is_int(parse_capture_pid_path("/proc/4503", &file), -1, "capture path: no file");
	is_int(parse_capture_pid_path("sonde:task/77/x", &file), -1, "capture path: task, more");
	is_int(parse_capture_pid_path("/proc/stat", &file), -1, "capture path: not a process");
	is_int(parse_capture_pid_path("/proc/0/stat", &file), -1, "capture path: pid 0");

	check_sample(render_fds, fds_sample, "1=293\n2=0\n3=0\n4=0\n", "sonde:fds");
	render(render_fds, S("0 3\n-1 3\n5 -3\n5 3 4\n6 9223372036854775808\n7 7\n"), &r);
	is_str(r.s, "7=7\n", "sonde:fds: pid 0, signs, a third field, past INT64_MAX refused");

	check_sample(render_files, files_sample,
		     "suspect 20700 cpu|\n"
		     "cwd 20700 254:0|5326546 /work/wt-unwind|\n"
		     "suspect 21301 write_bytes,wchar,fds,cpu|\n"
		     "file 21301 3 r|254:0|10953002 3142195 3145728 1 "
		     "/tmp/test_bundle_read.y1Ew2x/in/million.tar.zst|\n"
		     "file 21301 4 rw|0:26|200014 0 0 1 "
		     "/dev/shm/test_bundle_read.gFQO86/.sonde-open-1ot8KT.lock|\n"
		     "file 2926 1 w|254:0|10957943 2908 4096 0 "
		     "/tmp/bash_jobs.0/2dbb9dd1bfee/stdout\\040(deleted)|\n"
		     "cut\n",
		     "sonde:files");
	render(render_files,
	       S("suspect\t5\n"                                   /* no reasons */
		 "suspect\t5\tcpu\tmore\n"                        /* a field too many */
		 "cwd\t5\t1:2\tx\t/\n"                            /* inode not a number */
		 "file\t5\t3\tr\t1:2\t4\t5\t6\t7\n"               /* no path */
		 "file\t5\t3\tr\t1:2\t4\t5\t6\t7\t/p\textra\n"    /* eleven fields */
		 "file\tx\t3\tr\t1:2\t4\t5\t6\t7\t/p\n"           /* pid not a number */
		 "cut\tnow\n"
		 "other\t5\n"),
	       &r);
	is_str(r.s, "", "sonde:files: wrong field counts, numbers, kinds refused");
}

/* ---- cgroups: cgroup.procs (parse_pid.c), sonde:cgroups (parse_mount.c) ---- */

/* The head of /sys/fs/cgroup/pids/cgroup.procs on this VM. */
static const char procs_sample[] = "1\n2\n3\n4\n";

static int render_pid(int pid, void *arg)
{
	render_add(arg, "%d,", pid);
	return 0;
}

static void render_procs(const char *b, size_t n, struct render *r)
{
	parse_pid_list(b, n, render_pid, r);
}

/* sonde:cgroups of a run on this VM (v1 hierarchies and the v2 one, which lists none). */
static const char cgroups_sample[] =
	"1 /sys/fs/cgroup/cpu cpu,\n"
	"1 /sys/fs/cgroup/cpuacct cpuacct,\n"
	"1 /sys/fs/cgroup/memory memory,\n"
	"1 /sys/fs/cgroup/pids pids,\n"
	"2 /sys/fs/cgroup/unified \n";

static int render_hier(const struct cgroup_hier_line *h, void *arg)
{
	struct render *r = arg;

	render_add(r, "v%d ", h->version);
	render_word(r, h->mount);
	render_word(r, h->controllers);
	render_add(r, "\n");
	return 0;
}

static void render_cgroups(const char *b, size_t n, struct render *r)
{
	parse_cgroups_record(b, n, render_hier, r);
}

static int stop_at_two(int pid, void *arg)
{
	return ++*(int *)arg == 2 ? pid : 0;
}

static void test_cgroup_records(void)
{
	static struct render r;
	int seen = 0;

	check_sample(render_procs, procs_sample, "1,2,3,4,", "cgroup.procs");
	render(render_procs, S("0\n-1\n12x\n 7 \n8 9\n"), &r);
	is_str(r.s, "7,", "cgroup.procs: no pid 0, no sign or junk, blanks around allowed");
	is_int(parse_pid_list(S(procs_sample), stop_at_two, &seen), 2,
	       "cgroup.procs: the callback's non-zero stops the walk and is returned");
	check_sample(render_cgroups, cgroups_sample,
		     "v1 /sys/fs/cgroup/cpu|cpu,|\n"
		     "v1 /sys/fs/cgroup/cpuacct|cpuacct,|\n"
		     "v1 /sys/fs/cgroup/memory|memory,|\n"
		     "v1 /sys/fs/cgroup/pids|pids,|\n"
		     "v2 /sys/fs/cgroup/unified||\n",
		     "sonde:cgroups");
	render(render_cgroups, S("3 /x a,\n1\n1 /x a, b\nx /x\n"), &r);
	is_str(r.s, "", "sonde:cgroups: version 3, no mount, a fourth word, no version refused");
}

/* ---- a cgroup's per-device I/O files (parse_mount.c) ---- */

/* blkio.throttle.io_service_bytes of this VM (the root of its v1 blkio hierarchy). */
static const char blkio_bytes_sample[] =
	"254:0 Read 106722021376\n"
	"254:0 Write 27961417728\n"
	"254:0 Sync 140575256576\n"
	"254:0 Total 160227115008\n"
	"Total 160227115008\n";

/* io.max and io.stat as the kernel prints them (Documentation/admin-guide/cgroup-v2.rst). */
static const char io_max_sample[] = "8:16 rbps=2097152 wbps=max riops=max wiops=120\n";
static const char io_stat_sample[] =
	"8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n"
	"8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=1252 dbytes=50331648 dios=3021\n";

static int render_cgio_line(const struct cgroup_io_line *c, void *arg)
{
	struct render *r = arg;

	render_add(r, "%c ", "PNW"[c->kind]);
	render_word(r, c->dev);
	render_word(r, c->key);
	render_add(r, "%llu\n", (unsigned long long)c->value);
	return 0;
}

static void render_cgio(const char *b, size_t n, struct render *r)
{
	parse_cgroup_io(b, n, render_cgio_line, r);
}

static void render_hex_kv(const char *b, size_t n, struct render *r)
{
	uint64_t v;

	if (!parse_kv_hex(b, n, &v))
		render_add(r, "%llx", (unsigned long long)v);
}

static void test_cgroup_io(void)
{
	static struct render r;

	check_sample(render_cgio, blkio_bytes_sample,
		     "W 254:0|Read|106722021376\nW 254:0|Write|27961417728\n"
		     "W 254:0|Sync|140575256576\nW 254:0|Total|160227115008\n",
		     "blkio io_service_bytes");
	check_sample(render_cgio, io_max_sample, "P 8:16|rbps|2097152\nP 8:16|wiops|120\n",
		     "io.max: max is no number");
	check_sample(render_cgio, io_stat_sample,
		     "P 8:16|rbytes|1459200\nP 8:16|wbytes|314773504\nP 8:16|rios|192\n"
		     "P 8:16|wios|353\nP 8:16|dbytes|0\nP 8:16|dios|0\n"
		     "P 8:0|rbytes|90430464\nP 8:0|wbytes|299008000\nP 8:0|rios|8950\n"
		     "P 8:0|wios|1252\nP 8:0|dbytes|50331648\nP 8:0|dios|3021\n",
		     "io.stat");
	check_sample(render_cgio, "8:0 1048576\n", "N 8:0||1048576\n", "blkio read_bps_device");
	render(render_cgio,
	       S("8:0 12x\n8:0 Read 5 6\n8:0 Read -1\n80 rbps=1\n8:0 =5 rbps=7x wbps=8\n8:0\n"),
	       &r);
	is_str(r.s, "P 8:0|wbps|8\n",
	       "cgroup io: junk numbers, extra words, no device, an empty key skipped");

	/* a value of a line parse_kv split (no '\n' of its own): no cut rule of its own */
	render(render_hex_kv, S("000001fffeffffff"), &r);
	is_str(r.s, "1fffeffffff", "hex: CapEff of this VM");
	render(render_hex_kv, S(" 0x1f "), &r);
	is_str(r.s, "1f", "hex: 0x and blanks around");
	render(render_hex_kv, S("1fg"), &r);
	is_str(r.s, "", "hex: junk after");
	render(render_hex_kv, S("10000000000000000"), &r);
	is_str(r.s, "", "hex: past 64 bits");
	render(render_hex_kv, S(""), &r);
	is_str(r.s, "", "hex: empty");
}

/* ---- raw/history.cap (parse_value.c) ---- */

/* A bundle: record of a run's raw/history.cap on this VM (core/run/history.c writes it). */
static const char history_sample[] =
	"host sonde-vm\n"
	"boot_id 3f1c2a9e-7b1d-4c55-9a0e-2f9d1e6c4b21\n"
	"end_wall_ns 1795280012345678901\n"
	"metric\tuse.fd-runout\tfds\t\t1234\n"
	"metric\tuse.filesystem-runout\tused_pct\t/\t41.234567890123003\n"
	"metric\tuse.memory-runout\tavailable_bytes\t\t1.2345678901234567e+20\n";

static int render_history_line(const struct history_line *h, void *arg)
{
	struct render *r = arg;

	if (h->kind == HISTORY_BOOT_ID) {
		render_add(r, "boot ");
		render_word(r, h->boot_id);
	} else if (h->kind == HISTORY_END_WALL_NS) {
		render_add(r, "end %lld", (long long)h->end_wall_ns);
	} else {
		render_add(r, "m ");
		render_word(r, h->check);
		render_word(r, h->metric);
		render_word(r, h->instance);
		render_add(r, "%.17g", h->value);
	}
	render_add(r, "\n");
	return 0;
}

static void render_history(const char *b, size_t n, struct render *r)
{
	parse_history_record(b, n, render_history_line, r);
}

static void test_history_record(void)
{
	static struct render r;

	check_sample(render_history, history_sample,
		     "boot 3f1c2a9e-7b1d-4c55-9a0e-2f9d1e6c4b21|\n"
		     "end 1795280012345678901\n"
		     "m use.fd-runout|fds||1234\n"
		     "m use.filesystem-runout|used_pct|/|41.234567890123003\n"
		     "m use.memory-runout|available_bytes||1.2345678901234567e+20\n",
		     "history.cap");
	render(render_history,
	       S("end_wall_ns 12x\nend_wall_ns 1 2\nmetric\ta\tb\tc\t12abc\n"
		 "metric\ta\tb\tc\t1\t2\nmetric\ta\tb\t1\nmetrics\ta\tb\tc\t1\n"
		 "metric\ta\tb\tc\t-0.5\n"),
	       &r);
	is_str(r.s, "m a|b|c|-0.5\n",
	       "history.cap: junk numbers, a sixth or missing field, another kind skipped");
}

/* ---- host facts: uptime, /dev/kmsg (parse_proc.c), CPU lists and nodes (parse_sys.c) ---- */

static void render_uptime(const char *b, size_t n, struct render *r)
{
	double up, idle;

	if (!parse_uptime(b, n, &up, &idle))
		render_add(r, "%.2f %.2f", up, idle);
}

/* /dev/kmsg of this VM: two records, the second with its dictionary, then a line of neither. */
static const char kmsg_sample[] =
	"4,2,0,-;[Firmware Bug]: TSC doesn't count with P0 frequency!\n"
	"6,193,314186,-;acpi PNP0A08:00: _OSC: OS supports [ExtendedConfig ASPM ClockPM]\n"
	" SUBSYSTEM=acpi\n"
	" DEVICE=+acpi:PNP0A08:00\n"
	"kmsg: permission denied\n";

static int render_kmsg_line(const struct kmsg_line *k, void *arg)
{
	struct render *r = arg;

	if (k->kind == KMSG_RECORD) {
		render_add(r, "R %d %llu %llu ", k->prio, (unsigned long long)k->seq,
			   (unsigned long long)k->usec);
		render_word(r, k->text);
	} else {
		render_add(r, k->kind == KMSG_DICT ? "D " : "O ");
		render_word(r, k->line);
	}
	render_add(r, "\n");
	return 0;
}

static void render_kmsg(const char *b, size_t n, struct render *r)
{
	parse_kmsg(b, n, render_kmsg_line, r);
}

static void render_cpu_list(const char *b, size_t n, struct render *r)
{
	unsigned c;

	if (!parse_cpu_list(b, n, &c))
		render_add(r, "%u", c);
}

/* /sys/devices/system/node/node0/meminfo of this VM (its head). */
static const char node_meminfo_sample[] =
	"Node 0 MemTotal:       16083148 kB\n"
	"Node 0 MemFree:        14187072 kB\n"
	"Node 0 MemUsed:         1896076 kB\n";

static int render_kv(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	render_add(arg, "%.*s=%.*s|", (int)kl, k, (int)vl, v);
	return 0;
}

static void render_node_meminfo(const char *b, size_t n, struct render *r)
{
	parse_node_meminfo(b, n, render_kv, r);
}

static int stop_kmsg(const struct kmsg_line *k, void *arg)
{
	(void)k;
	return ++*(int *)arg == 2 ? 5 : 0;
}

static void test_host_facts(void)
{
	static struct render r;
	int seen = 0;

	check_sample(render_uptime, "13358.58 4501.29\n", "13358.58 4501.29", "uptime");
	render(render_uptime, S("13358.58\n"), &r);
	is_str(r.s, "", "uptime: the idle seconds missing");
	render(render_uptime, S("13358.58 4501.29 7\n"), &r);
	is_str(r.s, "", "uptime: a third field");
	render(render_uptime, S("x 1\n"), &r);
	is_str(r.s, "", "uptime: no number");

	check_sample(render_kmsg, kmsg_sample,
		     "R 4 2 0 [Firmware Bug]: TSC doesn't count with P0 frequency!|\n"
		     "R 6 193 314186 acpi PNP0A08:00: _OSC: OS supports [ExtendedConfig ASPM "
		     "ClockPM]|\n"
		     "D  SUBSYSTEM=acpi|\n"
		     "D  DEVICE=+acpi:PNP0A08:00|\n"
		     "O kmsg: permission denied|\n",
		     "kmsg");
	render(render_kmsg, S("6,1,2,-,caller=T1;a;b\n6,1;x\n-6,1,2,-;x\n6,1,2x;x\n6,1,2;\n\n"), &r);
	is_str(r.s,
	       "R 6 1 2 a;b|\nO 6,1;x|\nO -6,1,2,-;x|\nO 6,1,2x;x|\nR 6 1 2 |\nO |\n",
	       "kmsg: more header fields, the text's ';' kept; short, signed, junk headers are "
	       "other lines");
	render(render_kmsg, S("99999999999,1,2,-;x\n"), &r);
	is_str(r.s, "O 99999999999,1,2,-;x|\n", "kmsg: a priority past an int is no record");
	is_int(parse_kmsg(S(kmsg_sample), stop_kmsg, &seen), 5,
	       "kmsg: the callback's non-zero stops the walk and is returned");
	is_int(seen, 2, "kmsg: no call after the stop");

	check_sample(render_cpu_list, "0-1\n", "2", "cpu list: this VM's online");
	check_sample(render_cpu_list, "0-3,5,7-8\n", "7", "cpu list: ranges and singles");
	check_sample(render_cpu_list, "\n", "0", "cpu list: empty");
	render(render_cpu_list, S("0-3,\n"), &r);
	is_str(r.s, "", "cpu list: a trailing ','");
	render(render_cpu_list, S("3-1\n"), &r);
	is_str(r.s, "", "cpu list: a range backwards");
	render(render_cpu_list, S("0-\n"), &r);
	is_str(r.s, "", "cpu list: a range without its end");
	render(render_cpu_list, S("0-3x\n"), &r);
	is_str(r.s, "", "cpu list: junk after it");
	render(render_cpu_list, S("0-2147483648\n"), &r);
	is_str(r.s, "", "cpu list: a CPU number past an int");
	render(render_cpu_list, S("0-2147483647,0-2147483647,0-2147483647\n"), &r);
	is_str(r.s, "", "cpu list: a count past 32 bits");

	is_int(parse_numbered_name(S("node0"), "node"), 0, "numbered name: node0");
	is_int(parse_numbered_name(S("node12"), "node"), 12, "numbered name: node12");
	is_int(parse_numbered_name(S("node"), "node"), -1, "numbered name: no number");
	is_int(parse_numbered_name(S("node1x"), "node"), -1, "numbered name: junk after");
	is_int(parse_numbered_name(S("has_cpu"), "node"), -1, "numbered name: another name");
	is_int(parse_numbered_name(S("node2147483648"), "node"), -1,
	       "numbered name: past an int");
	is_int(parse_numbered_name("node12", 5, "node"), 1,
	       "numbered name: never read past n");

	check_sample(render_node_meminfo, node_meminfo_sample,
		     "MemTotal=16083148 kB|MemFree=14187072 kB|MemUsed=1896076 kB|",
		     "node meminfo");
	render(render_node_meminfo, S("MemTotal: 5 kB\nNode x MemFree: 1 kB\nNode 1 A: 2\n"), &r);
	is_str(r.s, "A=2|", "node meminfo: a line without its Node N is skipped");
}

/* ---- mutated samples through every parser ---- */

static uint64_t fuzz_state = 0x9e3779b97f4a7c15ull;

/* xorshift64: fixed seed, so a failure reproduces. */
static uint64_t fuzz_next(void)
{
	fuzz_state ^= fuzz_state << 13;
	fuzz_state ^= fuzz_state >> 7;
	fuzz_state ^= fuzz_state << 17;
	return fuzz_state;
}

static int fuzz_kv_check(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	int *bad = arg;

	*bad += !klen || !vlen || memchr(key, '\n', klen) || memchr(val, '\n', vlen) ||
		val[0] == ' ' || val[vlen - 1] == ' ';
	return 0;
}

static int fuzz_disk_check(const struct diskstat *ds, void *arg)
{
	int *bad = arg;

	*bad += ds->nfields < 11 || !ds->name[0] || !memchr(ds->name, '\0', sizeof(ds->name));
	return 0;
}

static int fuzz_netdev_check(const struct netdev *nd, void *arg)
{
	int *bad = arg;

	*bad += !nd->name[0] || !memchr(nd->name, '\0', sizeof(nd->name));
	return 0;
}

static int fuzz_irq_check(const char *name, size_t nlen, const char *desc, size_t dlen,
			  uint64_t total, void *arg)
{
	int *bad = arg;
	size_t i;

	*bad += !nlen || (dlen && (desc[0] == ' ' || desc[dlen - 1] == ' ')) ||
		memchr(desc, '\n', dlen) || memchr(name, ':', nlen);
	for (i = 0; i < nlen; i++)
		*bad += name[i] == ' ' || name[i] == '\t' || name[i] == '\n';
	return 0;
}

static int fuzz_one(const char *b, size_t len)
{
	struct proc_stat ps;
	struct loadavg la;
	struct psi psi;
	struct file_nr fn;
	struct pid_stat st;
	struct pid_status pst;
	struct pid_io io;
	uint64_t soft, hard;
	int bad = 0, i;

	if (!parse_proc_stat(b, len, &ps)) {
		for (i = 1; i < ps.ncpu; i++)
			bad += ps.cpu_id[i] <= ps.cpu_id[i - 1];
	} else {
		bad += ps.cpu || ps.cpu_id || ps.ncpu;
	}
	proc_stat__free(&ps);
	if (!parse_loadavg(b, len, &la))
		bad += !(la.load1 >= 0 && la.load5 >= 0 && la.load15 >= 0);
	if (!parse_pressure(b, len, &psi))
		bad += !psi.some.present && !psi.full.present;
	parse_kv(b, len, fuzz_kv_check, &bad);
	parse_snmp(b, len, fuzz_kv_check, &bad);
	parse_diskstats(b, len, fuzz_disk_check, &bad);
	parse_net_dev(b, len, fuzz_netdev_check, &bad);
	parse_file_nr(b, len, &fn);
	if (!parse_pid_stat(b, len, &st))
		bad += !memchr(st.comm, '\0', sizeof(st.comm)) || st.nfields < 0;
	parse_pid_status(b, len, &pst);
	bad += !memchr(pst.name, '\0', sizeof(pst.name));
	if (!parse_pid_io(b, len, &io))
		bad += io.present != 0 && io.present != 1;
	parse_pid_limits_nofile(b, len, &soft, &hard);
	parse_interrupts(b, len, fuzz_irq_check, &bad);
	return bad;
}

static void test_fuzz(void)
{
	static const struct {
		const char *s;
		size_t n;
	} seeds[] = {
		{ S(stat_sample) },     { S(loadavg_sample) },   { S(psi_io_sample) },
		{ S(meminfo_sample) },  { S(snmp_sample) },      { S(diskstats_sample) },
		{ S(diskstats_old) },   { S(netdev_sample) },    { S(file_nr_sample) },
		{ S(pid_stat_sample) }, { S(pid_status_sample) }, { S(pid_io_sample) },
		{ S(limits_sample) },   { S(irq_sample) },       { S(irq_mce_sample) },
	};
	/* Bytes the formats hinge on, plus a few that no format expects. */
	static const char special[] = "\n\t ():-=/.0123456789kB\xff\x80";
	int i, k, bad = 0;

	for (i = 0; i < 2600; i++) {
		size_t n = seeds[i % ARRAY_SIZE(seeds)].n, len = n;
		char *b = dup_exact(seeds[i % ARRAY_SIZE(seeds)].s, n);
		int nmut = 1 + fuzz_next() % 6;

		for (k = 0; k < nmut; k++) {
			uint64_t r = fuzz_next();
			size_t at = r % n;

			if ((r >> 32) % 4 == 0)
				b[at] = (char)(r >> 40);
			else
				b[at] = special[(r >> 40) % (sizeof(special) - 1)];
		}
		/* Half the time also cut it short. */
		if (fuzz_next() % 2)
			len = fuzz_next() % (n + 1);
		bad += fuzz_one(b, len);
		free(b);
	}
	is_int(bad, 0, "fuzz: 2600 mutated samples through every parser keep their invariants");
}

/* sonde:task/PID, a task source's one line per process (util/parse.h) */
static void test_task_record(void)
{
	static const char ok_line[] =
		"4242 (my ) proc) S 1 0 3 2577 1 24 7 1234 5 17 98765 1000 40 2 31415926 2718 12 "
		"43 777 4242 100 200 3 4 4096 8192\n";
	static const char hostile[] =
		"7 (a) R 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 - - - - - - - - -\n)) S 2 1 1 0 0 0 0 0 0 0 "
		"0 0 0 0 0 0 0 - unlimited unlimited - - - - - -\n";
	static const char *const bad[] = {
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1",   /* no newline */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1\n",   /* a field short */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 9\n", /* one too many */
		"1 (a) S 1 2 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", /* kthread 2 */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 - 1 1 1 1 1\n", /* io half unknown */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 - 1 1 1 1 1 1 1\n", /* a limit "-" */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 99999999999999999999\n",
		"1 (a) SS 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", /* state of two */
		"1 a S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",   /* no comm */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 5 6 7\n", /* three more */
		"1 (a) S 1 0 1 1 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 5 x\n", /* swap not a number */
		"",
	};
	static const char with_mem[] =
		"9 (m) S 1 0 1 700 0 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 650 12\n";
	static const char mem_unknown[] =
		"9 (k) I 2 1 1 0 0 1 1 1 1 1 1 0 1 1 1 1 1 - 1 1 - - - - - - - -\n";
	struct pid_task t;

	is_int(parse_task_record(ok_line, sizeof(ok_line) - 1, &t), 0, "task record: parsed");
	is_int(t.pid, 4242, "task record: pid");
	is_str(t.comm, "my ) proc", "task record: a comm with ') ' kept whole");
	ok(t.state == 'S' && t.ppid == 1 && !t.kernel_thread && t.threads == 3,
	   "task record: state, ppid, kernel thread, threads");
	ok(t.rss_pages == 2577 && t.processor == 1 && t.utime == 24 && t.stime == 7,
	   "task record: rss, processor, utime, stime");
	ok(t.minflt == 1234 && t.majflt == 5 && t.blkio_ticks == 17 && t.starttime == 98765,
	   "task record: faults, blkio, starttime");
	ok(t.uid == 1000 && t.vol_ctxt == 40 && t.nonvol_ctxt == 2, "task record: uid, switches");
	ok(t.run_ns == 31415926 && t.wait_ns == 2718 && t.slices == 12, "task record: schedstat");
	ok(t.fds == 43 && t.nofile_soft == 777 && t.nofile_hard == 4242, "task record: fds, limits");
	ok(t.has_io && t.rchar == 100 && t.wchar == 200 && t.syscr == 3 && t.syscw == 4 &&
		   t.read_bytes == 4096 && t.write_bytes == 8192,
	   "task record: the six I/O counters");

	is_int(parse_task_record(hostile, sizeof(hostile) - 1, &t), 0,
	       "task record: a comm holding a newline and a whole forged line");
	ok(t.pid == 7 && t.state == 'S' && t.ppid == 2 && t.kernel_thread == 1,
	   "task record: the fields after the last ')' are the real ones");
	ok(t.fds == -1 && !t.has_io && t.nofile_soft == UINT64_MAX && t.nofile_hard == UINT64_MAX,
	   "task record: '-' is unknown, 'unlimited' is unlimited");
	ok(t.anon_pages == UINT64_MAX && t.swap_pages == UINT64_MAX,
	   "task record: one without ANON_PAGES and SWAP_PAGES (an earlier sonde's): both unknown");
	is_int(parse_task_record(with_mem, sizeof(with_mem) - 1, &t), 0,
	       "task record: with ANON_PAGES and SWAP_PAGES");
	ok(t.anon_pages == 650 && t.swap_pages == 12 && t.rss_pages == 700,
	   "task record: anonymous and swapped-out pages");
	is_int(parse_task_record(mem_unknown, sizeof(mem_unknown) - 1, &t), 0,
	       "task record: a kernel thread's '-' memory");
	ok(t.anon_pages == UINT64_MAX && t.swap_pages == UINT64_MAX,
	   "task record: '-' pages are unknown");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ok(parse_task_record(bad[i], strlen(bad[i]), &t) == -EINVAL,
		   "task record: refused, malformed #%zu", i);
}

/* ---- parse_schedstat (/proc/schedstat) ---- */

struct sched_seen {
	int n, cpu[4];
	uint64_t run[4], wait[4], slices[4];
};

static int sched_seen_fn(int cpu, uint64_t run_ns, uint64_t wait_ns, uint64_t slices, void *arg)
{
	struct sched_seen *s = arg;

	if (s->n < 4) {
		s->cpu[s->n] = cpu;
		s->run[s->n] = run_ns;
		s->wait[s->n] = wait_ns;
		s->slices[s->n] = slices;
	}
	s->n++;
	return 0;
}

static void test_system_schedstat(void)
{
	static const char real[] =
		"version 17\n"
		"timestamp 4295892357\n"
		"cpu0 0 0 0 0 0 0 1296520932 162849093 9337\n"
		"domain0 MC 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"cpu1 0 0 0 0 0 0 1196520000 62849000 8337\n";
	struct sched_seen s = { 0 };
	int bad = 0;

	is_int(parse_schedstat(real, strlen(real), sched_seen_fn, &s), 0,
	       "/proc/schedstat: a version 17 sample parses");
	is_int(s.n, 2, "/proc/schedstat: one callback per cpu line, domains skipped");
	ok(s.cpu[1] == 1 && s.run[0] == 1296520932 && s.wait[0] == 162849093 && s.slices[0] == 9337,
	   "/proc/schedstat: run, wait and timeslices of each CPU");
	memset(&s, 0, sizeof(s));
	is_int(parse_schedstat(S("version 14\ncpu0 1 2 3 4 5 6 7 8 9\n"), sched_seen_fn, &s),
	       -EINVAL, "/proc/schedstat: a version before 15 (other fields) is refused");
	is_int(parse_schedstat(S("cpu0 1 2 3 4 5 6 7 8 9\n"), sched_seen_fn, &s), -EINVAL,
	       "/proc/schedstat: no version line is refused");
	memset(&s, 0, sizeof(s));
	is_int(parse_schedstat(S("version 17\ncpu0 1 2 3\ncpux 1 2 3 4 5 6 7 8 9\n"
				 "cpu1 0 0 0 0 0 0 99999999999999999999 1 1\n"),
			       sched_seen_fn, &s),
	       0, "/proc/schedstat: short, misnamed and overflowing lines are skipped");
	is_int(s.n, 0, "/proc/schedstat: ... and give no CPU");
	for (size_t cut = 0; cut < sizeof(real) - 1; cut++) {
		char *copy = malloc(cut ? cut : 1);

		memcpy(copy, real, cut);
		memset(&s, 0, sizeof(s));
		parse_schedstat(copy, cut, sched_seen_fn, &s);
		bad += s.n > 2 || (s.n >= 1 && s.wait[0] != 162849093);
		free(copy);
	}
	is_int(bad, 0, "/proc/schedstat: every cut read gives complete lines only");
	is_int(parse_schedstat(NULL, 0, sched_seen_fn, &s), -EINVAL, "/proc/schedstat: empty");
}

int main(void)
{
	test_schedstat();
	test_system_schedstat();
	test_counter_delta();
	test_mountinfo_unescape();
	test_kv_numbers();
	test_proc_stat_sample();
	test_proc_stat_truncation();
	test_proc_stat_hostile();
	test_proc_stat_counts();
	test_loadavg();
	test_pressure();
	test_kv();
	test_snmp();
	test_diskstats();
	test_net_dev();
	test_file_nr();
	test_pid_stat_sample();
	test_pid_stat_hostile();
	test_pid_status();
	test_pid_io();
	test_pid_limits();
	test_task_record();
	test_interrupts();
	test_mounts();
	test_host_facts();
	test_history_record();
	test_cgroup_io();
	test_values();
	test_net_records();
	test_pid_records();
	test_cgroup_records();
	test_fuzz();
	return tap_done();
}
