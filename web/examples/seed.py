# The seed example from the README. The worker already ran
#   await micropip.install("webtorch")   (from the page's own /simple/ index)
import webtorch as torch

a = torch.tensor([-1.5, 2.7, 1.0, 2.0], device="webgpu")
b = torch.tensor([-1.0, 0.9, 1.1, -2.1], device="webgpu")
result = a + b
assert torch.allclose(result.to("cpu"), torch.tensor([-2.5, 3.6, 2.1, -0.1]))
print(result)
print("on", torch.webgpu.get_device_name())
x = torch.arange(9.0, device="webgpu").reshape(3, 3)
print((x @ x).tolist())
result.tolist()
