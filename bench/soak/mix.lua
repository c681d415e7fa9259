-- The soak's request mix for wrk: the demo's endpoints, successes and errors,
-- in a fixed rotation of 20 requests.
local upload = string.rep("u", 2048)
local mix = {
  {"GET", "/plaintext"}, {"GET", "/plaintext"}, {"GET", "/plaintext"}, {"GET", "/plaintext"},
  {"GET", "/plaintext"}, {"GET", "/plaintext"}, {"GET", "/json"}, {"GET", "/json"},
  {"GET", "/json"}, {"POST", "/echo", upload}, {"POST", "/upload", upload}, {"GET", "/stream?n=20"},
  {"GET", "/stream?n=20&x=1"}, {"GET", "/download?size=65536"}, {"GET", "/download?as=seq&size=65536"},
  {"GET", "/sleep?ms=5"}, {"GET", "/static/index.html"}, {"GET", "/no-such-page"},
  {"GET", "/static/../../etc/passwd"}, {"POST", "/echo", string.rep("b", 300)},
}
local i = 0

request = function()
  i = i % #mix + 1
  local m = mix[i]
  if m[3] then
    return wrk.format(m[1], m[2], {["Content-Type"] = "application/octet-stream"}, m[3])
  end
  return wrk.format(m[1], m[2])
end
