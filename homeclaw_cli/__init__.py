"""homeclaw: local-first plugins and skills for LLM agents."""

__version__ = "0.1.0"
