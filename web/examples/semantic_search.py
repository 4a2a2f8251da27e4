# Semantic search (web/search.html): all-MiniLM-L6-v2 (web/examples/minilm.py, BERT as ordinary PyTorch
# code) embeds a corpus of sentences on WebGPU; search() ranks them by cosine similarity to a query.
# The page runs this file once, then search(query) per query, in the same Python session.
import json, time
import webtorch as torch
from minilm import MiniLM, WordPiece, encode

try:  # in webtorch's worker (web/worker.js): events to the page
    from webtorch_web import emit
except ImportError:
    def emit(kind, data):
        pass

ORIGIN = globals().get("ORIGIN", "http://127.0.0.1:8000")
SUBSET = globals().get("SUBSET", 1)  # the page embeds every SUBSET-th sentence on a software adapter
BATCH = 16
timings = {}

t0 = time.perf_counter()
# the download streams with progress events and stays in the browser's Cache Storage for the next visit
state = torch.hub.load_state_dict_from_url(f"{ORIGIN}/minilm/model.safetensors", map_location="cpu")
timings["download"] = time.perf_counter() - t0

t0 = time.perf_counter()
model = torch.nn.utils.skip_init(MiniLM, device="webgpu").eval()  # no random init: the weights overwrite it
with torch.no_grad():
    targets = model.state_dict()
    for i, (name, tensor) in enumerate(state.items()):
        targets[name].copy_(tensor)  # one tensor at a time to the GPU
        emit("tensors", json.dumps({"loaded": i + 1, "total": len(state)}))
del state
from pyodide.http import pyfetch
tokenizer = WordPiece(await (await pyfetch(f"{ORIGIN}/minilm/vocab.txt")).string())
corpus = (await (await pyfetch(f"{ORIGIN}/web/data/corpus.txt")).string()).splitlines()[::SUBSET]
timings["to_gpu"] = time.perf_counter() - t0


t0 = time.perf_counter()
parts = []
for i in range(0, len(corpus), BATCH):
    parts.append(encode(model, tokenizer, corpus[i:i + BATCH]))
    emit("embedded", json.dumps({"done": min(i + BATCH, len(corpus)), "total": len(corpus)}))
corpus_embeddings = torch.cat(parts)
corpus_embeddings.sum().item()  # wait for the GPU before timing
timings["embed_corpus"] = time.perf_counter() - t0
print(f"{len(corpus)} sentences embedded on {torch.webgpu.get_device_name()}: "
      + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()))


def search(query, k=5):
    """The k corpus sentences nearest to query, with their cosine scores (embeddings are unit length)."""
    t0 = time.perf_counter()
    scores = (corpus_embeddings @ encode(model, tokenizer, [query])[0]).tolist()
    best = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]
    return {"hits": [{"sentence": corpus[i], "score": scores[i]} for i in best],
            "seconds": time.perf_counter() - t0, "timings": timings}
