-- ADD_TOKENS (see redis-rate-limiter.ts): a request's tokens into the subject's window.
local key, bucketMs, amount = KEYS[1], tonumber(ARGV[1]), ARGV[2]
local current = advance(key, bucketMs, nowMs())
redis.call('HINCRBY', key, 't' .. (current % SLOTS), amount)
redis.call('HINCRBY', key, 'tokens', amount)
redis.call('HSET', key, 'last', fmt(current), 'lastTokens', fmt(current))
redis.call('PEXPIREAT', key, fmt((current + SLOTS) * bucketMs))
return 1
