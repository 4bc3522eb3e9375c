-- Mixed: 90% viewer, 8% logIn, 2% logOut followed by logIn. One connection per thread (-t = -c),
-- so each response answers the thread's last request. Thread k owns the users with
-- index = k (mod threads) and keeps their current tokens.
package.path = os.getenv("BENCH_LUA") .. "/?.lua;" .. package.path
local c = require "common"
local mine, last, pending, installation = {}, nil, nil, nil
local vbody = '{"query":"{ viewer { user { username } } }"}'
local obody = '{"query":"mutation { logOut(input: {clientMutationId: \\"x\\"}) { ok } }"}'
function setup(thread) c.setup(thread) end
function init(args)
  local all = c.load_users()
  local nt = tonumber(os.getenv("BENCH_THREADS") or "8")
  for i, u in ipairs(all) do if (i - 1) % nt == tid - 1 then mine[#mine + 1] = u end end
  math.randomseed(tid * 15485863 + os.time())
  installation = "bench-mixed-" .. tid
end
local H = { ["Content-Type"] = "application/json" }
local function hdr(token)
  return { ["Content-Type"] = "application/json", ["X-Parse-Session-Token"] = token, ["X-Parse-Installation-Id"] = installation }
end
function request()
  local u
  if pending then
    u = pending; pending = nil
    last = { kind = "login", user = u }
    return wrk.format("POST", nil, hdr(nil), c.login_body(u))
  end
  u = mine[math.random(#mine)]
  local r = math.random()
  if r < 0.90 then
    last = { kind = "viewer", user = u }
    return wrk.format("POST", nil, hdr(u.token), vbody)
  elseif r < 0.98 then
    last = { kind = "login", user = u }
    return wrk.format("POST", nil, hdr(nil), c.login_body(u))
  else
    last = { kind = "logout", user = u }
    pending = u
    return wrk.format("POST", nil, hdr(u.token), obody)
  end
end
function response(status, headers, b)
  if not last then return end
  if last.kind == "viewer" then
    c.check(status, b, '{"data":{"viewer":{"user":{"username":"' .. last.user.name .. '"}}}}')
  elseif last.kind == "login" then
    if c.check(status, b, '"sessionToken":"r:') then
      last.user.token = b:match('"sessionToken":"(r:[0-9a-f]+)"')
    end
  else
    c.check(status, b, '"ok":true')
  end
  last = nil
end
function done(s, l, r) c.done(s, l, r) end
