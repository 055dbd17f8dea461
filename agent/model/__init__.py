"""The model: what the loop calls, and the Anthropic client behind it.

- protocol.py: ``Model``, ``ModelRequest``, ``ModelResponse``, ``ModelError`` (what a model is
  to the loop).
- anthropic.py: the official SDK's client, streamed; stream.py: reading its events;
  retry.py: eddy's own retries (the SDK's are off).
- providers.py: Bedrock, Vertex, Foundry, apiKeyHelper; pricing.py (+ prices.json): cost;
  side.py: one-shot questions to the small fast model; web_search.py: the API's server tools.
"""
