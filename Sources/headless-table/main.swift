import HeadlessTable
print("hi")
