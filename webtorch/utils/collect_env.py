"""torch.utils.collect_env: the environment report bug templates ask for, with webtorch's facts (its
version, Python, the platform, numpy, and the WebGPU adapter when one is there)."""
import platform
import subprocess
import sys

__all__ = ["get_pretty_env_info", "get_env_info", "main", "run", "get_nvidia_driver_version"]


def run(command):
    """(return code, stdout, stderr) of a shell command, as torch's helper returns them."""
    try:
        done = subprocess.run(command, shell=True, capture_output=True, text=True)
    except OSError as e:  # no processes (Pyodide)
        return 1, "", str(e)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def get_nvidia_driver_version(run_lambda=run):
    return None  # webtorch drives no NVIDIA device


def get_env_info():
    from .. import webgpu
    from ..version import __version__
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = None
    try:
        adapter = webgpu.adapter_info() if webgpu.is_available() else None
    except Exception:  # noqa: BLE001 - a report must not fail on a broken adapter
        adapter = None
    return {"PyTorch version (webtorch's torch API)": str(__version__), "Python version": sys.version.replace("\n", " "),
            "Python platform": platform.platform(), "OS": f"{platform.system()} {platform.release()}",
            "numpy version": numpy_version, "WebGPU adapter": adapter, "Is CUDA available": False}


def get_pretty_env_info():
    return "\n".join(f"{key}: {value}" for key, value in get_env_info().items())


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
