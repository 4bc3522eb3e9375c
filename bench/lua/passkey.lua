-- logInWithPasskey with request bodies signed ahead (bench/PasskeyBench): BENCH_BODIES holds one
-- body per line, each usable once; thread t of BENCH_THREADS sends lines t, t+n, t+2n, … in order.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local bodies, next_body
function setup(thread) c.setup(thread) end
function init(args)
  bodies, next_body = {}, 0
  local n, k = tonumber(os.getenv("BENCH_THREADS")), 0
  for line in io.lines(os.getenv("BENCH_BODIES")) do
    if k % n == tid - 1 then bodies[#bodies + 1] = line end
    k = k + 1
  end
end
function request()
  next_body = next_body + 1
  -- Past the end a body is sent again and refused (its challenge is used): counted as errors.
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, bodies[(next_body - 1) % #bodies + 1])
end
function response(status, headers, b) c.check(status, b, '"sessionToken":"r:') end
function done(s, l, r) c.done(s, l, r) end
