-- One `users` search with the master key, the same request every time: its JSON body in the file
-- BENCH_BODY (bench/growth.py queries writes one per search), the key in BENCH_MASTER_KEY.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local body, key
function setup(thread) c.setup(thread) end
function init(args)
  local f = assert(io.open(os.getenv("BENCH_BODY")))
  body = f:read("*a")
  f:close()
  key = os.getenv("BENCH_MASTER_KEY")
end
function request()
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["X-Parse-Master-Key"] = key }, body)
end
function response(status, headers, b) c.check(status, b, '{"data":{"users":{') end
function done(s, l, r) c.done(s, l, r) end
