-- The one wrk script every benchmark run uses.
--
--   wrk ... -s bench/wrk/bench.lua URL -- DEPTH UPLOAD_BYTES
--
-- DEPTH > 1 pipelines: each write carries DEPTH requests, as TechEmpower's
-- pipeline.lua does. UPLOAD_BYTES > 0 makes every request a POST with a body of
-- that many bytes. At the end it prints one line of JSON that the harness reads:
-- the counts, the errors, and the latency percentiles in microseconds.

local depth = 1

init = function(args)
  depth = tonumber(args[1]) or 1
  local upload = tonumber(args[2]) or 0
  if upload > 0 then
    wrk.method = "POST"
    wrk.body = string.rep("x", upload)
    wrk.headers["Content-Type"] = "application/octet-stream"
  end
  if depth > 1 then
    local batch = {}
    for i = 1, depth do
      batch[i] = wrk.format()
    end
    local requests = table.concat(batch)
    -- Only a pipelining run defines request(): without it wrk sends its
    -- prepared request as it is, the cheapest way it has.
    request = function()
      return requests
    end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
