"""torch.backends.cpu: the CPU's vector capability. webtorch's cpu device computes with numpy (or plain
Python in Pyodide), not with torch's AVX kernels: "DEFAULT", the answer of a CPU without them, which sends
libraries down their portable paths (torchvision resizes uint8 images through float32 then)."""


def get_cpu_capability():
    return "DEFAULT"
