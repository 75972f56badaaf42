import Chronicle
