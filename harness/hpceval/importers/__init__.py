"""Importers: turn suggestion dumps from elsewhere (the study's GitHub Copilot panels) into replay JSONL."""
