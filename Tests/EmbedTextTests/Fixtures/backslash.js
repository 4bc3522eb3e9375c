const hash = /\#(\w+)/; // a backslash and a hash, with no quote before: \#n \#(x)
