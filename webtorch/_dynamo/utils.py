"""torch._dynamo.utils: is_compile_supported answers for Dynamo, which webtorch does not have."""

__all__ = ["is_compile_supported"]


def is_compile_supported(device_type):
    return False
