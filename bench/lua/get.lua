-- GET of the URL (the key set, the discovery document): 200 with BENCH_EXPECT in the body.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local expect
function setup(thread) c.setup(thread) end
function init(args) wrk.method = "GET"; expect = os.getenv("BENCH_EXPECT") end
function response(status, headers, b) c.check(status, b, expect) end
function done(s, l, r) c.done(s, l, r) end
