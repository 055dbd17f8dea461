"""What the model reads besides the conversation, and what a prompt becomes.

- system.py: the system prompt; output_styles.py: its styles.
- images.py, mentions.py: images and @-mentioned files a prompt carries.
- skills.py: skills (the Skill tool, their grants); commands.py: custom commands (/name).
"""
