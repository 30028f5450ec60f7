"""What pyproject.toml cannot say: styles/ (the Textual CSS, at the top of the repository)
installs as the package raw_tui.styles, where raw_tui/ui/styles.py finds it. The demo's tool
and hook folders hold Python files without being packages: found as namespace packages, they
install with their data and setuptools has nothing to warn about."""

from setuptools import find_namespace_packages, setup

setup(packages=find_namespace_packages(include=["raw_tui*"], exclude=["*.__pycache__"])
      + ["raw_tui.styles"],
      package_dir={"raw_tui.styles": "styles"})
