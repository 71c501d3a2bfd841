--- Network tables running out: the connection tracking table against nf_conntrack_max, and the
-- local ports for the busiest destination against ip_local_port_range (a connect() needs a port
-- free for its destination: "Cannot assign requested address"), by their trend over the window.
local runout = require("runout")
local trend = require("trend")
local fmt = require("fmt")

return {
  id = "use.network-runout",
  title = "Network tables running out",
  methodology = "use", resource = "network", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "net.sockets", "proc.pids" },
  args = runout.args(),

  run = function(ctx, args)
    local cands = {}
    local ct, why = ctx.proc.conntrack()
    if ct and ct:last("max") and ct:last("max") > 0 then
      local ts, ys = trend.points(ct, "count")
      cands[#cands + 1] = runout.assess(ctx, { name = "conntrack table", instance = "conntrack", ts = ts, ys = ys,
        capacity = ct:last("max"), unit = "", kind = "conntrack" }, args)
    else
      -- no module: nothing can fill, which is a fact about this host, not something unseen
      ctx:note("connection tracking: " .. (why or "no nf_conntrack_max"))
    end
    local lp, pwhy = ctx.proc.local_ports()
    if lp and lp.range then
      local size = lp.range[2] - lp.range[1] + 1
      local ts, ys = trend.points(lp.series, "busiest")
      -- the destination that is busiest at the end names the resource
      local top, topn = nil, -1
      for _, d in pairs(lp.destinations) do
        local n = d.series[#d.series].count
        if d.series[#d.series].seq == lp.series[#lp.series].seq and n > topn then top, topn = d, n end
      end
      cands[#cands + 1] = runout.assess(ctx, { name = "local ports to " .. (top and top.name or "one destination"),
        instance = "local ports", ts = ts, ys = ys, capacity = size, unit = "", kind = "ports", dest = top }, args)
      if (lp.series:last("ports") or 0) > 0 then
        ctx:metric("ephemeral_ports_in_use", lp.series:last("ports"), {})
      end
    else
      ctx:unknown("time_left_s", "local ports: " .. (pwhy or "no ip_local_port_range"))
    end
    local out = runout.report(ctx, cands, args, "Network tables: level, trend and time until full")
    if #out == 0 then
      ctx:summary("no network table is filling (conntrack, local ports)")
      return
    end
    local worst = out[1]
    local sentence = runout.sentence(worst, "exhausted")
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
