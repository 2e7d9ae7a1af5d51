"""council: a structured debate between AI coding CLIs that ends in a decision."""

# The one place the version is written: hatch reads it for the wheel, `council --version`,
# the SARIF driver and council-sim print it. Semantic versioning (CHANGELOG.md).
__version__ = "0.1.0"

# The name on the package index (`council` there is someone else's project).
DISTRIBUTION = "council-debate"
