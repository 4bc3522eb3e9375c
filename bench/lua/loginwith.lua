-- logInWith with ID tokens from the local OpenID Connect provider: BENCH_TOKENS holds lines
-- "provider field sub token" (field: id_token or token), taken at random.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local tokens
local query = 'mutation W($a: Object!) { logInWith(input: {authData: $a}) { viewer { sessionToken } } }'
function setup(thread) c.setup(thread) end
function init(args)
  tokens = {}
  for line in io.lines(os.getenv("BENCH_TOKENS")) do
    local provider, field, sub, token = line:match("^(%S+) (%S+) (%S+) (%S+)")
    if provider then
      tokens[#tokens + 1] = '{"query":"' .. query .. '","variables":{"a":{"' .. provider .. '":{"id":"' .. sub
        .. '","' .. field .. '":"' .. token .. '"}}}}'
    end
  end
  math.randomseed(tid * 15485863 + os.time())
end
function request()
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, tokens[math.random(#tokens)])
end
function response(status, headers, b) c.check(status, b, '"sessionToken":"r:') end
function done(s, l, r) c.done(s, l, r) end
