CREATE TABLE "statistics_days" (
	"day" date NOT NULL,
	"series" text NOT NULL,
	"key" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "statistics_days_day_series_key_pk" PRIMARY KEY("day","series","key")
);
--> statement-breakpoint
CREATE TABLE "statistics_hours" (
	"hour" timestamp with time zone NOT NULL,
	"series" text NOT NULL,
	"key" text NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "statistics_hours_hour_series_key_pk" PRIMARY KEY("hour","series","key")
);
