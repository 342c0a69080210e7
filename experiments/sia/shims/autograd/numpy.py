"""autograd.numpy for the stand-in autograd: plain numpy (no tracing needed for finite differences)."""
from numpy import *  # noqa: F401,F403
