--- File systems running out: the trend of each one's space and inodes over the window (and over
-- the earlier audits of this host in --out), the time until it is full with its range, who
-- writes to it, and the files deleted but still held open (space du cannot see).
local trend = require("trend")
local runout = require("runout")
local fmt = require("fmt")

-- The processes holding files (or their working directory) on device dev, with their write rate:
-- write_bytes, or wchar on a file system without a block device (tmpfs: nothing reaches a disk).
-- One that writes nothing but works there and ran in the window is kept too: creating empty files
-- takes inodes, not bytes. The biggest writers first, then the busiest.
local function writers(ctx, files, by_pid, dev, block)
  local secs = ctx.window.seconds > 0 and ctx.window.seconds or 1
  local seen, out, deleted = {}, {}, {}
  local function add(pid, how)
    local t = by_pid[pid]
    if not t or t.self or seen[pid] then return end
    local bytes = (block and t.write_bytes or t.wchar) or 0
    seen[pid] = true
    out[#out + 1] = { task = t, rate = bytes / secs, how = how }
  end
  for _, f in ipairs(files and files.files or {}) do
    if f.dev == dev then
      if f.deleted then deleted[#deleted + 1] = f end
      if f.mode:find("w") then add(f.pid, "writes " .. f.path) end
    end
  end
  for pid, c in pairs(files and files.cwd or {}) do
    if c.dev == dev then add(pid, "works in " .. c.path) end
  end
  local active = {}
  for _, e in ipairs(out) do
    if e.rate > 0 or (e.task.utime or 0) + (e.task.stime or 0) > 0 then active[#active + 1] = e end
  end
  table.sort(active, function(a, b)
    if a.rate ~= b.rate then return a.rate > b.rate end
    return (a.task.cpu_share or 0) > (b.task.cpu_share or 0)
  end)
  return active, deleted
end

-- The levels earlier audits recorded (ctx.history("used_bytes")), as df's Used. An older sonde
-- recorded size - available, root's reserve counted as used; its bundles recorded no
-- reserved_bytes: their levels are taken less the reserve this window measures (ext4's is fixed
-- at mkfs or tune2fs). Returns hist and, by mount, what was corrected: { reserve, bundles }.
local function older_levels(hist, reserved, fs)
  if not hist then return nil, {} end
  local corrected = {}
  for m, points in pairs(hist) do
    local own = {}
    for _, p in ipairs(reserved and reserved[m] or {}) do own[p.bundle] = true end
    local s = fs[m]
    local res = s and s[#s].reserved_bytes or 0
    for _, p in ipairs(points) do
      if not own[p.bundle] and res > 0 then
        p.value = math.max(0, p.value - res)
        corrected[m] = corrected[m] or { reserve = res, bundles = {} }
        table.insert(corrected[m].bundles, p.bundle)
      end
    end
  end
  return hist, corrected
end

return {
  id = "use.filesystem-runout",
  title = "File systems running out",
  methodology = "use", resource = "filesystem", metric = "utilization",
  tags = { "default", "proc" },
  collect = { "proc.mounts", "proc.pids", "history" },
  args = runout.args(),

  run = function(ctx, args)
    local fs, why = ctx.proc.filesystems()
    if not fs then
      ctx:unknown("time_left_s", why)
      return
    end
    local hist, corrected = older_levels(ctx.history("used_bytes"), ctx.history("reserved_bytes"), fs)
    local ihist = ctx.history("inodes_used")
    local mounts = {}
    for m in pairs(fs) do mounts[#mounts + 1] = m end
    table.sort(mounts)
    local cands = {}
    for _, m in ipairs(mounts) do
      local s = fs[m]
      local last = s[#s]
      if last.status == "ok" and (last.size_bytes or 0) > 0 and not last.readonly then
        -- the level is df's Used (size - free); full for a non-root writer when nothing is
        -- available: the capacity is used + available, root's reserve left out (as df's Use%)
        local ts, ys = trend.points(s, "used_bytes")
        local base = { mount = m, dev = last.dev, block = last.device ~= "-" and last.device ~= nil }
        local space = { name = m, instance = m, ts = ts, ys = ys, unit = "bytes", verb = "full",
                        capacity = last.used_bytes and last.avail_bytes and last.used_bytes + last.avail_bytes }
        cands[#cands + 1] = setmetatable(space, { __index = base })
        if #ys > 0 then
          ctx:metric("used_bytes", ys[#ys], { unit = "bytes", instance = m, agg = "last", node_exporter = "node_filesystem_free_bytes" })
          ctx:metric("reserved_bytes", last.reserved_bytes or 0, { unit = "bytes", instance = m, agg = "last", node_exporter = "node_filesystem_free_bytes", help = "root's reserve: free minus available" })
        end
        local its, iys = trend.points(s, "inodes_used")
        local inodes
        if (last.inodes or 0) > 0 and #iys > 0 then
          inodes = setmetatable({ name = m .. " inodes", subject = m, instance = m .. " inodes", ts = its, ys = iys,
            capacity = last.inodes, unit = "", verb = "out of inodes" }, { __index = base })
          cands[#cands + 1] = inodes
          ctx:metric("inodes_used", iys[#iys], { instance = m, agg = "last", node_exporter = "node_filesystem_files_free" })
        end
        -- across runs: the levels earlier audits of this host recorded, then this window's last (a
        -- file system's use survives a reboot: every audit of this host counts)
        for _, h in ipairs({ { hist, space }, { ihist, inodes } }) do
          local long = h[2] and runout.across(h[2], h[1] and h[1][m], { base = base })
          if long then cands[#cands + 1] = long end
        end
      end
    end
    if #cands == 0 then
      ctx:unknown("time_left_s", "no writable local file system with a capacity was measured")
      return
    end
    for _, c in ipairs(cands) do runout.assess(ctx, c, args) end
    local out = runout.report(ctx, cands, args, "File systems: level, trend and time until full")
    -- the earlier audits the trends across runs used, named
    local audits = {}
    for _, m in ipairs(mounts) do
      for _, p in ipairs(hist and hist[m] or {}) do
        audits[#audits + 1] = { p.bundle, os.date("!%Y-%m-%d %H:%M", math.floor(p.when)), m, fmt.bytes(p.value),
                                p.same_boot and "yes" or "no" }
      end
    end
    if #audits > 0 then
      ctx:table { title = "Earlier audits of this host (raw/history.cap)",
                  columns = { "bundle", "window end (UTC)", "file system", "in use then", "same boot" }, rows = audits }
    end
    runout.across_notes(ctx, cands)
    for _, m in ipairs(mounts) do
      local c = corrected[m]
      if c then
        ctx:note(string.format("%s: %s (an older sonde) recorded size minus available; taken less the %s reserved"
          .. " for root, as df counts used", m, table.concat(c.bundles, ", "), fmt.bytes(c.reserve)))
      end
    end
    if #out == 0 then
      ctx:summary(string.format("no file system is filling: %d measured, none with a steady rise that runs out", #mounts))
      return
    end
    local worst = out[1]
    local files = ctx.proc.open_files()
    local by_pid = {}
    for _, t in ipairs(ctx.proc.tasks() or {}) do by_pid[t.pid] = t end
    local active, deleted = writers(ctx, files, by_pid, worst.dev, worst.block)
    local named = runout.blame(ctx, active, worst.long and 0 or worst.ex.rate, 3)
    local rows = {}
    for _, e in ipairs(named) do
      rows[#rows + 1] = { e.task.pid, e.task.comm, runout.rate(e.rate, "bytes"), e.how }
    end
    if #rows > 0 then
      ctx:table { title = "Who writes to " .. worst.mount .. (worst.block and " (write_bytes over the window)"
                    or " (wchar over the window: no block device)"),
                  columns = { "pid", "process", "writes", "how" }, rows = rows }
    elseif not files then
      ctx:note("the writers' open files were not captured: no process can be named")
    else
      ctx:note("none of the window's top writers holds a file or works on " .. worst.mount
        .. ": a writer that opens and closes each file between samples leaves no trace sonde reads")
    end
    local held = 0
    rows = {}
    for _, f in ipairs(deleted) do
      held = held + f.blocks_bytes
      local t = by_pid[f.pid]
      rows[#rows + 1] = { f.pid, t and t.comm or "?", f.fd, fmt.bytes(f.blocks_bytes), f.path }
    end
    if #rows > 0 then
      ctx:table { title = "Files deleted but still open on " .. worst.mount .. " (du cannot see them; the space returns when they are closed)",
                  columns = { "pid", "process", "fd", "allocated", "file" }, rows = rows }
    end
    local sentence
    if worst.long then
      sentence = runout.grew_sentence(worst)
    else
      sentence = runout.sentence(worst, worst.verb)
    end
    local who = runout.who(named)
    if who then sentence = sentence .. "; writer: " .. who end
    if held > 0 then sentence = sentence .. "; " .. fmt.bytes(held) .. " held by deleted files still open" end
    ctx:summary(sentence)
    -- the others running out, each with its own writers
    for k = 2, math.min(#out, 6) do
      local c = out[k]
      local w = writers(ctx, files, by_pid, c.dev, c.block)
      local line = c.long and string.format("%s: %s %s (since earlier audits)", c.mount, c.verb, trend.when(c.ex))
        or runout.sentence(c, c.verb)
      if w[1] then line = line .. "; writer: " .. fmt.task(w[1].task) end
      ctx:note("also: " .. line)
    end
    ctx:next("what fills " .. worst.mount .. ": du -xsh " .. worst.mount .. "/* | sort -h; deleted but open: lsof +L1 "
      .. worst.mount)
  end,
}
