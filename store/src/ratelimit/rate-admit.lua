-- ADMIT (see redis-rate-limiter.ts): one request into the subject's window, if it fits.
local key, bucketMs = KEYS[1], tonumber(ARGV[1])
local requestLimit, tokenLimit, expected = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = nowMs()
local current, requests, tokens, lastTokens = advance(key, bucketMs, now)
local refusedBy, refusedAt = 0, 0
if requestLimit and requests + 1 > requestLimit then
  refusedBy, refusedAt = 1, freedAt(key, 'r', current, requests + 1 - requestLimit, bucketMs)
end
if tokenLimit then
  local excess = tokens + math.min(expected, tokenLimit) - tokenLimit
  if excess > 0 then
    local at = freedAt(key, 't', current, excess, bucketMs)
    if refusedBy == 0 or at > refusedAt then refusedBy, refusedAt = 2, at end
  end
end
if refusedBy > 0 then return {0, refusedBy, refusedAt - now} end
requests = requests + 1
redis.call('HINCRBY', key, 'r' .. (current % SLOTS), 1)
redis.call('HSET', key, 'last', fmt(current), 'requests', fmt(requests))
redis.call('PEXPIREAT', key, fmt((current + SLOTS) * bucketMs))
local resetAt = now
if requestLimit then resetAt = (current + SLOTS) * bucketMs end
if tokenLimit and tokens > 0 and lastTokens then
  resetAt = math.max(resetAt, (lastTokens + SLOTS) * bucketMs)
end
return {1, requests, tokens, resetAt - now}
