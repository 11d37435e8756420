"""The read side: views of a tournament's state (views.py), shared by every reader."""
