package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
function setup(thread) c.setup(thread) end
function init(args)
  wrk.method = "POST"; wrk.body = '{"query":"{ health }"}'; wrk.headers["Content-Type"] = "application/json"
end
function response(status, headers, b) c.check(status, b, '{"data":{"health":true}}') end
function done(s, l, r) c.done(s, l, r) end
