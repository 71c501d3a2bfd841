--- Network tables running out: the connection tracking table against nf_conntrack_max, and the
-- local ports for the busiest destination against ip_local_port_range (a connect() needs a port
-- free for its destination: "Cannot assign requested address"), by their trend over the window.
--
-- Across runs: the conntrack table's entries (metric conntrack_entries, instance "conntrack")
-- continue over the earlier audits of this host in --out (ctx.history) of this boot only: a reboot
-- empties the table, so an audit of another boot is left out, named. The local ports are not carried
-- across runs: what runs out is the ports toward one destination, and the busiest destination of
-- one run is not the next one's (ephemeral_ports_in_use, all destinations together, is no level
-- that runs out).
local runout = require("runout")
local trend = require("trend")
local fmt = require("fmt")

local function loopback(addr)
  return addr:match("^127%.") or addr == "::1" or addr:match("^::ffff:127%.")
end

-- Per round, the destination with the most local ports that a new connect() cannot have: all of
-- its sockets, less those in TIME_WAIT when tcp_tw_reuse hands them out again (1: toward any
-- destination, 2: toward loopback only). Returns the times, the levels and the destination of the
-- last round.
local function ports_level(lp)
  local by_seq = {}
  for _, d in pairs(lp.destinations) do
    local reusable = lp.tw_reuse == 1 or (lp.tw_reuse == 2 and loopback(d.addr))
    for _, x in ipairs(d.series) do
      local v = x.count - (reusable and (x.timewait or 0) or 0)
      local b = by_seq[x.seq]
      if not b or v > b.v then by_seq[x.seq] = { v = v, d = d } end
    end
  end
  local ts, ys, top = {}, {}, nil
  for _, x in ipairs(lp.series) do
    local b = by_seq[x.seq]
    ts[#ts + 1], ys[#ys + 1] = x.t, b and b.v or 0
    top = b and b.d or nil
  end
  return ts, ys, top
end

return {
  id = "use.network-runout",
  title = "Network tables running out",
  methodology = "use", resource = "network", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "net.sockets", "proc.pids", "history" },
  args = runout.args(),

  run = function(ctx, args)
    local cands, conntrack, long = {}, nil, nil
    local ct, why = ctx.proc.conntrack()
    if ct and ct:last("max") and ct:last("max") > 0 then
      local ts, ys = trend.points(ct, "count")
      conntrack = runout.assess(ctx, { name = "conntrack table", instance = "conntrack", ts = ts, ys = ys,
        capacity = ct:last("max"), unit = "", kind = "conntrack", verb = "full" }, args)
      cands[#cands + 1] = conntrack
      if #ys > 0 then ctx:metric("conntrack_entries", ys[#ys], { instance = "conntrack", over = ys, agg = "last", node_exporter = "node_nf_conntrack_entries" }) end
      local hist = ctx.history("conntrack_entries")
      long = runout.across(conntrack, hist and hist.conntrack, { reset_at_boot = true, base = { kind = "conntrack" } })
      if long then cands[#cands + 1] = runout.assess(ctx, long, args) end
    else
      -- no module: nothing can fill, which is a fact about this host, not something unseen
      ctx:note("connection tracking: " .. (why or "no nf_conntrack_max"))
    end
    local lp, pwhy = ctx.proc.local_ports()
    if lp and lp.range then
      local ts, ys, top = ports_level(lp)
      cands[#cands + 1] = runout.assess(ctx, { name = "local ports to " .. (top and top.name or "one destination"),
        instance = "local ports", ts = ts, ys = ys, capacity = lp.range[2] - lp.range[1] + 1, unit = "",
        kind = "ports", dest = top }, args)
      if (lp.series:last("ports") or 0) > 0 then
        ctx:metric("ephemeral_ports_in_use", lp.series:last("ports"), { agg = "last" })
      end
      if lp.tw_reuse and lp.tw_reuse > 0 then
        ctx:note(string.format("net.ipv4.tcp_tw_reuse = %d: ports in TIME_WAIT %s are handed out again, not counted",
          lp.tw_reuse, lp.tw_reuse == 1 and "toward any destination" or "toward loopback"))
      end
    else
      ctx:unknown("time_left_s", "local ports: " .. (pwhy or "no ip_local_port_range"))
    end
    local out = runout.report(ctx, cands, args, "Network tables: level, trend and time until full")
    if conntrack then
      runout.audits(ctx, { conntrack })
      runout.across_notes(ctx, { conntrack, long })
    end
    if #out == 0 then
      ctx:summary("no network table is filling (conntrack, local ports)")
      return
    end
    local worst = out[1]
    local sentence = worst.long and runout.grew_sentence(worst) or runout.sentence(worst, "exhausted")
    if worst.kind == "ports" and worst.dest then
      -- who connects there: the owners of a few of its sockets (TIME_WAIT ones have none)
      local by_pid, count = {}, {}
      for _, t in ipairs(ctx.proc.tasks() or {}) do by_pid[t.pid] = t end
      for _, ino in ipairs(worst.dest.inodes) do
        local pid = lp.owners[ino]
        if pid and by_pid[pid] then count[pid] = (count[pid] or 0) + 1 end
      end
      local entries = {}
      for pid, n in pairs(count) do entries[#entries + 1] = { task = by_pid[pid], rate = n } end
      local named = runout.blame(ctx, entries, #worst.dest.inodes, 3)
      local who = runout.who(named)
      sentence = sentence .. string.format(" (%s in TIME_WAIT)", fmt.num(lp.series:last("timewait") or 0))
      if who then sentence = sentence .. "; connecting: " .. who end
      ctx:next("who connects to " .. worst.dest.name .. ": ss -tanp dst " .. worst.dest.name
        .. "; reuse connections, or widen net.ipv4.ip_local_port_range")
    elseif worst.kind == "conntrack" then
      ctx:note("conntrack entries belong to no process: conntrack -L | awk '{print $5}' | sort | uniq -c | sort -n "
        .. "names the busiest sources")
    end
    ctx:summary(sentence)
  end,
}
