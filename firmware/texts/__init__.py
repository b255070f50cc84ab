"""What people read, in both languages: the console's lines, notices, faces, the public texts."""
