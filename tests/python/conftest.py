"""pytest setup for the Python package's tests (tools/test_python.sh runs them)."""
import pytest

np = pytest.importorskip("numpy")
