-- wrk script: POST a distinct time-activity event per request (unique requestId), with the token.
local counter = 0
local run = tostring(os.time()) .. tostring(math.random(1, 1000000))

request = function()
  counter = counter + 1
  local body = string.format(
    '{"requestId":"bench-%s-%d","company":"bench","eventType":"clock_in",' ..
    '"eventTimestamp":1790000000,"evnetTimestamp":1790000000,"activityType":"shift",' ..
    '"userId":1001,"timeClockId":7000,"timeActivity":{"id":"a%d","start":' ..
    '{"timestamp":1789990000,"timezone":"Europe/London","source":{"type":"mobile"}}},' ..
    '"timeActivityId":"a%d"}', run, counter, counter, counter)
  return wrk.format("POST", nil,
    {["Content-Type"] = "application/json", ["X-Webhook-Token"] = "bench-token"}, body)
end
