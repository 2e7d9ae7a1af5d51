"""council: a structured debate between AI coding CLIs that ends in a decision."""

# The one place the version is written: hatch reads it for the wheel, `council --version`,
# the SARIF driver and council-sim print it. Semantic versioning (CHANGELOG.md).
__version__ = "0.1.0"

# The name on the package index (`council` there is someone else's project).
DISTRIBUTION = "council-debate"

# Where the source and its documentation live: help texts point there, at this version's tag,
# since an installed wheel holds no docs/ folder.
REPOSITORY = "https://github.com/council-debate/council"


def docs_url(path: str) -> str:
    """A documentation file of this version, by its path in the repository (`docs/lean.md`)."""
    return f"{REPOSITORY}/blob/v{__version__}/{path}"
