/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of BPF tools, one TRACE_TOOL(<tool>) line each, in the order
 * `sonde list` shows them. A tool is bpf/<tool>.bpf.c (kernel side),
 * bpf/<tool>.h (types shared with user space) and core/trace/<tool>.c, which
 * defines `const struct trace_tool trace_<tool>` with .name "<tool>".
 *
 * Read by the runner (trace_tools[] and TRACE_MAX_TOOLS, through the
 * TRACE_TOOL macro: no include guard), by the Makefile (which BPF objects and
 * skeletons to build) and by tests/layout/bpf-tools.t (files and
 * docs/bpf-tools.md agree with it): keep one line per tool, as written here.
 */
TRACE_TOOL(runqlat)
TRACE_TOOL(biolatency)
TRACE_TOOL(execsnoop)
TRACE_TOOL(syscount)
TRACE_TOOL(fslatency)
TRACE_TOOL(tcpretrans)
TRACE_TOOL(tcpdrop)
TRACE_TOOL(oomkill)
TRACE_TOOL(killsnoop)
TRACE_TOOL(hardirqs)
TRACE_TOOL(softirqs)
TRACE_TOOL(profile)
TRACE_TOOL(offcputime)
TRACE_TOOL(futexctn)
TRACE_TOOL(klockstat)
