// A chat-completions endpoint on loopback that answers each request with the next scripted message and
// keeps the request bodies: the model of the recordings, so that no API is called.
import { createServer } from "node:http";

/** Starts the endpoint; `baseURL` is its /v1 address, `requests` what clients posted, `close()` stops it. */
export async function scriptedChatEndpoint(replies) {
  const requests = [];
  let n = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      requests.push(JSON.parse(body));
      const message = replies[n++];
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${n}`,
          object: "chat.completion",
          created: 1763900000 + n,
          model: "scripted-model",
          choices: [
            { index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop", logprobs: null },
          ],
          usage: { prompt_tokens: 60, completion_tokens: 12, total_tokens: 72 },
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
