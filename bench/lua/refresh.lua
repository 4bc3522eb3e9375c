-- The token endpoint's refresh grant: BENCH_REFRESH holds one refresh token a line, of the public
-- client "bench"; thread N of BENCH_THREADS takes every BENCH_THREADS-th line. A refresh token is
-- single use, so each answer's new token goes back into the thread's pool for a later request
-- (a connection asks again only after its answer, so the pool never runs dry while it holds at
-- least as many tokens as the thread has connections). With BENCH_REFRESH_KEEP set, done() writes
-- the tokens left in the pools back to BENCH_REFRESH, so that a later run follows on from them
-- (a token whose answer never came back is lost, never presented twice).
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
-- A global, so that done() can read each thread's pool back.
pool = {}
function setup(thread) c.setup(thread) end
function init(args)
  pool = {}
  local threads, i = tonumber(os.getenv("BENCH_THREADS")), 0
  for line in io.lines(os.getenv("BENCH_REFRESH")) do
    if i % threads == tid - 1 then pool[#pool + 1] = line end
    i = i + 1
  end
end
function request()
  local token = table.remove(pool, 1)
  return wrk.format("POST", "/oauth/token", { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "grant_type=refresh_token&client_id=bench&refresh_token=" .. token)
end
function response(status, headers, body)
  local next = body:match('"refresh_token":"([^"]+)"')
  if status == 200 and next then
    ok = ok + 1
    pool[#pool + 1] = next
  else
    c.fail(status, body)
  end
end
function done(s, l, r)
  c.done(s, l, r)
  if os.getenv("BENCH_REFRESH_KEEP") then
    local out = io.open(os.getenv("BENCH_REFRESH"), "w")
    for _, t in ipairs(c.threads) do
      for _, token in ipairs(t:get("pool")) do out:write(token, "\n") end
    end
    out:close()
  end
end
