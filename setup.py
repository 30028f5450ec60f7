"""What pyproject.toml cannot say: styles/ (the Textual CSS, at the top of the repository)
installs as the package raw_tui.styles, where raw_tui/ui/styles.py finds it."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["raw_tui*"]) + ["raw_tui.styles"],
      package_dir={"raw_tui.styles": "styles"})
