-- Shared by the wrk scripts: user file, per-thread counters, done() aggregation.
-- Each wrk thread has its own Lua state; setup() (main state) keeps the thread objects so
-- done() can add up every thread's counters.
local M = {}
M.threads = {}
local nthreads = 0

function M.load_users()
  local users = {}
  for line in io.lines(os.getenv("BENCH_USERS")) do
    local name, pass, token = line:match("^(%S+) (%S+) (%S+)")
    if name then users[#users + 1] = { name = name, pass = pass, token = token } end
  end
  return users
end

function M.setup(thread)
  nthreads = nthreads + 1
  thread:set("tid", nthreads)
  thread:set("nthreads_hint", 0)
  M.threads[#M.threads + 1] = thread
end

-- Globals in each thread's state: ok, errors, non200, first_error.
ok, errors, non200, first_error = 0, 0, 0, ""

function M.fail(status, body)
  errors = errors + 1
  if status ~= 200 then non200 = non200 + 1 end
  if first_error == "" then first_error = tostring(status) .. " " .. tostring(body):sub(1, 200) end
end

function M.check(status, body, expect)
  if status == 200 and body:find(expect, 1, true) and not body:find('"errors"', 1, true) then
    ok = ok + 1
    return true
  end
  M.fail(status, body)
  return false
end

function M.done(summary, latency, requests)
  local e, o, n, first = 0, 0, 0, ""
  for _, t in ipairs(M.threads) do
    e = e + t:get("errors"); o = o + t:get("ok"); n = n + t:get("non200")
    local f = t:get("first_error")
    if first == "" and f and f ~= "" then first = f end
  end
  local s = summary.errors
  io.write(string.format("RESULT requests=%d ok=%d errors=%d non200=%d timeouts=%d connect=%d read=%d ok_per_s=%.2f\n",
    summary.requests, o, e, n, s.timeout, s.connect, s.read, o / (summary.duration / 1e6)))
  if first ~= "" then io.write("FIRST_ERROR " .. first:gsub("\n", " ") .. "\n") end
end

function M.json(s) return (s:gsub('\\', '\\\\'):gsub('"', '\\"')) end

M.LOGIN = 'mutation L($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) { viewer { sessionToken user { username } } } }'

function M.login_body(u)
  return '{"query":"' .. M.LOGIN .. '","variables":{"u":"' .. u.name .. '","p":"' .. u.pass .. '"}}'
end

return M
