"""webtorch: PyTorch for the browser, on WebGPU, in pure Python."""
__version__ = "0.1.0"
