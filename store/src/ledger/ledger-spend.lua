-- SPEND (see redis-ledger.ts): adds unreserved spend once, by its marker.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local actual = ARGV[1]
for i = 2, #KEYS do
  if ARGV[i + 1] ~= '1' or redis.call('HEXISTS', KEYS[i], 'seeded') == 1 then
    redis.call('HINCRBY', KEYS[i], 'spent', actual)
  end
end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
return 1
