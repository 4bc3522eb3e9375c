-- logOut of distinct sessions: thread t of n takes lines t, t+n, t+2n, ... of BENCH_TOKENS (one
-- token a line, sessions made for the run), so no token is logged out twice while they last.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local tokens, i, step = {}, 0, 1
local body = '{"query":"mutation { logOut(input: {clientMutationId: \\"x\\"}) { ok } }"}'
function setup(thread) c.setup(thread) end
function init(args)
  for line in io.lines(os.getenv("BENCH_TOKENS")) do tokens[#tokens + 1] = line end
  step = tonumber(os.getenv("BENCH_THREADS") or "1")
  i = tid - step
end
function request()
  i = i + step
  if i > #tokens then i = tid end  -- run out: the script makes more than a run uses
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["X-Parse-Session-Token"] = tokens[i] }, body)
end
function response(status, headers, b) c.check(status, b, '{"data":{"logOut":{"ok":true}}}') end
function done(s, l, r) c.done(s, l, r) end
