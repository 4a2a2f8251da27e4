"""torch._dynamo.eval_frame: OptimizedModule, the class of a compiled module, which libraries test for
(accelerate's is_compiled_module, used by transformers' save_pretrained when accelerate is installed):
webtorch.compile's module wrapper, attached here by webtorch/_compile.py (a layer above)."""
