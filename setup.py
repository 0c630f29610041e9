"""Build the optional compiled n-gram kernel.

The kernel is a speed path only: when Cython or a C compiler is missing the
build goes on without it and gecmetrics uses its pure-Python kernel, which
gives identical numbers (tests check both against the same oracle).
"""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: install the pure-Python package only
    ext_modules = []
else:
    ext_modules = cythonize(
        [Extension("gecmetrics._kernel", ["gecmetrics/_kernel.pyx"], optional=True)],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )

setup(ext_modules=ext_modules)
