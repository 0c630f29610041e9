"""Build the optional compiled kernels (n-gram counts; M2 lattice and shortest path;
ERRANT's alignment).

The kernels are speed paths only: when Cython or a C compiler is missing the
build goes on without them and gecmetrics uses its pure-Python code, which
gives identical numbers (tests check both against the same oracles).
``metrics/`` is ``gecmetrics.metrics`` (through the link gecmetrics/metrics), hence
the M2 kernel's module name and source path.
"""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: install the pure-Python package only
    ext_modules = []
else:
    ext_modules = cythonize(
        [
            Extension("gecmetrics._kernel", ["gecmetrics/_kernel.pyx"], optional=True),
            Extension("gecmetrics.edits._align_kernel", ["gecmetrics/edits/_align_kernel.pyx"],
                      optional=True),
            Extension("gecmetrics.metrics._m2_kernel", ["metrics/_m2_kernel.pyx"], optional=True),
            Extension("gecmetrics.metrics._imeasure_kernel", ["metrics/_imeasure_kernel.pyx"],
                      optional=True),
        ],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )

setup(ext_modules=ext_modules)
