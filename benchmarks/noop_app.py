"""The reference for the receiver benchmark: a FastAPI endpoint that reads the body and answers 200.

Same framework, server and route as the receiver, with no authentication, parsing or storage.
"""

from fastapi import FastAPI, Request
from fastapi.responses import Response

app = FastAPI()


@app.post("/webhooks/connecteam")
async def receive(request: Request) -> Response:
    await request.body()
    return Response(b'{"status":"ok"}', media_type="application/json")
